package shepherd.coordination;

import java.util.List;
import java.util.Objects;
import java.util.SortedSet;
import shepherd.coordination.assign.Assignment;
import shepherd.coordination.assign.AssignmentInput;
import shepherd.protocol.Request;
import shepherd.protocol.Response;

/**
 * What the coordinator core asks the runtime to do, typed by where it goes: {@link ZooKeeper} to the adapter,
 * {@link Network} to the consumers' connections, {@link Timer} to the runtime's timers, and {@link Observation}s,
 * which change nothing and are there to be logged, counted and checked. The runtime executes effects in list order.
 */
public sealed interface CoordinatorEffect {

    /** Effects for the ZooKeeper adapter. */
    sealed interface ZooKeeper extends CoordinatorEffect {}

    /** Effects on the consumers' connections. */
    sealed interface Network extends CoordinatorEffect {}

    /** Effects on the runtime's timers. */
    sealed interface Timer extends CoordinatorEffect {}

    /** What happened, for logs, metrics and checkers; executing one changes nothing. */
    sealed interface Observation extends CoordinatorEffect {}

    /** Create the election node; on NodeExists watch it and retry; on success bump the epoch in the same multi. */
    record RunForElection() implements ZooKeeper {}

    /** Delete our election node (if its ephemeral owner is our session) and, unless {@code rejoin}, stay out. */
    record Resign(boolean rejoin) implements ZooKeeper {}

    /** Read (and re-arm the watch of) part of the tree. */
    record Read(ZkRead read) implements ZooKeeper {
        public Read {
            Objects.requireNonNull(read, "read");
        }
    }

    /** A cheap read whose only purpose is to prove the session alive. */
    record KeepAlive() implements ZooKeeper {}

    /**
     * One {@code multi}: {@code check(/consumers/epoch, epoch)} then {@code ops}. {@code fenced == false} only
     * under the negative control that switches fencing off.
     */
    record Write(long writeId, int epoch, boolean fenced, List<ZkOp> ops) implements ZooKeeper {
        public Write {
            ops = List.copyOf(ops);
        }
    }

    /** Send a Ping, Stop or Start; the answer comes back as ResponseReceived or ConnectionClosed. */
    record SendRequest(long connectionId, long requestId, Request request) implements Network {
        public SendRequest {
            Objects.requireNonNull(request, "request");
        }
    }

    /** Answer a consumer's request. */
    record Respond(long connectionId, int correlationId, Response response) implements Network {
        public Respond {
            Objects.requireNonNull(response, "response");
        }
    }

    record CloseConnection(long connectionId) implements Network {}

    record SetTimer(CoordinatorTimer timer, long deadlineMs) implements Timer {
        public SetTimer {
            Objects.requireNonNull(timer, "timer");
        }
    }

    record CancelTimer(CoordinatorTimer timer) implements Timer {
        public CancelTimer {
            Objects.requireNonNull(timer, "timer");
        }
    }

    /** Forget every timer (the full reset of handleNewSession). */
    record CancelAllTimers() implements Timer {}

    /**
     * Something worth one log line: bad input, a member declared failed, a stand-down. {@code kind} lets a runtime
     * count the notices it cares about (the broker's metrics) without parsing the message.
     */
    record Notice(Kind kind, String message) implements Observation {
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
    record Assigned(String group, AssignmentInput input, Assignment assignment) implements Observation {
        public Assigned {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(assignment, "assignment");
        }
    }

    /** Handover complete: the runtime may close the broker. */
    record HandedOver(int epoch) implements Observation {}

    /** A group's owners multi committed: {@code generation} is the group's now, with these members. */
    record GenerationReached(String group, int generation, List<String> members) implements Observation {
        public GenerationReached {
            Objects.requireNonNull(group, "group");
            members = List.copyOf(members);
        }
    }

    /**
     * A run of the group ended (or a handover abandoned it) and no other began in the same step. {@code stable}:
     * every member connected and started in {@code generation}, nothing pending ({@link GroupView#stable()}).
     */
    record RebalanceEnded(String group, int generation, boolean stable, SortedSet<String> members, int partitions)
            implements Observation {
        public RebalanceEnded {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(members, "members");
        }
    }

    /** A member left the group: it left by itself, or the coordinator removed it ({@code failed}). */
    record MemberRemoved(String group, String consumerId, boolean failed) implements Observation {
        public MemberRemoved {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(consumerId, "consumerId");
        }
    }
}
