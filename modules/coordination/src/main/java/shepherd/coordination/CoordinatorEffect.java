package shepherd.coordination;

import java.util.List;
import java.util.Objects;
import shepherd.coordination.assign.Assignment;
import shepherd.coordination.assign.AssignmentInput;
import shepherd.protocol.Request;
import shepherd.protocol.Response;

/** What the coordinator core asks the runtime to do. The runtime executes effects in list order. */
public sealed interface CoordinatorEffect {

    /** Create the election node; on NodeExists watch it and retry; on success bump the epoch in the same multi. */
    record RunForElection() implements CoordinatorEffect {}

    /** Delete our election node (if its ephemeral owner is our session) and, unless {@code rejoin}, stay out. */
    record Resign(boolean rejoin) implements CoordinatorEffect {}

    /** Read (and re-arm the watch of) part of the tree. */
    record Read(ZkRead read) implements CoordinatorEffect {
        public Read {
            Objects.requireNonNull(read, "read");
        }
    }

    /** A cheap read whose only purpose is to prove the session alive. */
    record KeepAlive() implements CoordinatorEffect {}

    /**
     * One {@code multi}: {@code check(/consumers/epoch, epoch)} then {@code ops}. {@code fenced == false} only
     * under the negative control that switches fencing off.
     */
    record Write(long writeId, int epoch, boolean fenced, List<ZkOp> ops) implements CoordinatorEffect {
        public Write {
            ops = List.copyOf(ops);
        }
    }

    /** Send a Ping, Stop or Start; the answer comes back as ResponseReceived or ConnectionClosed. */
    record SendRequest(long connectionId, long requestId, Request request) implements CoordinatorEffect {
        public SendRequest {
            Objects.requireNonNull(request, "request");
        }
    }

    /** Answer a consumer's request. */
    record Respond(long connectionId, int correlationId, Response response) implements CoordinatorEffect {
        public Respond {
            Objects.requireNonNull(response, "response");
        }
    }

    record CloseConnection(long connectionId) implements CoordinatorEffect {}

    record SetTimer(CoordinatorTimer timer, long deadlineMs) implements CoordinatorEffect {
        public SetTimer {
            Objects.requireNonNull(timer, "timer");
        }
    }

    record CancelTimer(CoordinatorTimer timer) implements CoordinatorEffect {
        public CancelTimer {
            Objects.requireNonNull(timer, "timer");
        }
    }

    /** Forget every timer (the full reset of handleNewSession). */
    record CancelAllTimers() implements CoordinatorEffect {}

    /**
     * Something worth one log line: bad input, a member declared failed, a stand-down. {@code kind} lets a runtime
     * count the notices it cares about (the broker's metrics) without parsing the message.
     */
    record Notice(Kind kind, String message) implements CoordinatorEffect {
        /** What a notice reports; {@link #OTHER} for anything only worth reading. */
        public enum Kind {
            OTHER,
            /** A ping went unanswered, or was due while the member had no connection (it counts as missed). */
            PING_MISSED,
            /** The coordinator removed a member that did not leave by itself (pings, Stop rounds, no return). */
            MEMBER_FAILED
        }

        public Notice {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(message, "message");
        }

        public Notice(String message) {
            this(Kind.OTHER, message);
        }
    }

    /**
     * A run computed an assignment (seed rebalance step 2). Nothing to execute: runtimes log it, the simulation
     * checks it (AssignmentWellFormed).
     */
    record Assigned(String group, AssignmentInput input, Assignment assignment) implements CoordinatorEffect {
        public Assigned {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(assignment, "assignment");
        }
    }

    /** Handover complete: the runtime may close the broker. */
    record HandedOver(int epoch) implements CoordinatorEffect {}
}
