package shepherd.consumer.session;

import java.util.List;
import java.util.Objects;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.Response;

/**
 * What the core asks the runtime to do. The runtime executes a step's effects <b>in list order</b>: in
 * particular a {@link StopFetchers} is carried out before any later {@link StartFetchers}, {@link SendLeave} or
 * {@link CloseConnection}.
 */
public sealed interface SessionEffect {

    /** Open a one-shot connection to {@code broker}, send Consult, report ConsultAnswered or ConsultFailed. */
    record SendConsult(BrokerInfo broker) implements SessionEffect {
        public SendConsult {
            Objects.requireNonNull(broker, "broker");
        }
    }

    /** Open the long-lived connection to the coordinator; report Connected or ConnectionClosed. */
    record Connect(BrokerInfo coordinator) implements SessionEffect {
        public Connect {
            Objects.requireNonNull(coordinator, "coordinator");
        }
    }

    /** Send Register on the coordinator connection. */
    record SendRegister(RegisterRequest request) implements SessionEffect {
        public SendRegister {
            Objects.requireNonNull(request, "request");
        }
    }

    /** Answer the coordinator's request {@code correlationId}. */
    record Respond(int correlationId, Response response) implements SessionEffect {
        public Respond {
            Objects.requireNonNull(response, "response");
        }
    }

    /** Start one fetcher per assigned partition, feeding the named streams from the given offsets. */
    record StartFetchers(int generation, List<PartitionAssignment> assigned) implements SessionEffect {
        public StartFetchers {
            assigned = List.copyOf(assigned);
        }
    }

    /**
     * Close every fetcher and clear its queues (seed Stop handler step 1.2), then report {@code
     * FetchersStopped(generation, taken)}. Idempotent: stopping when nothing runs still reports FetchersStopped.
     */
    record StopFetchers(int generation) implements SessionEffect {}

    /** Deliver {@code TimerFired(key)} once {@code nowMs ≥ deadlineMs}; replaces any earlier deadline of the key. */
    record SetTimer(TimerKey key, long deadlineMs) implements SessionEffect {
        public SetTimer {
            Objects.requireNonNull(key, "key");
        }
    }

    /** Forget the timer {@code key}; a firing already queued is harmless (the core checks deadlines itself). */
    record CancelTimer(TimerKey key) implements SessionEffect {
        public CancelTimer {
            Objects.requireNonNull(key, "key");
        }
    }

    /** Close the coordinator connection; its in-flight messages are dropped, no response is awaited. */
    record CloseConnection(int brokerId) implements SessionEffect {}

    /** Send Leave on the coordinator connection; its answer comes back as {@link SessionEvent.LeaveAnswered}. */
    record SendLeave(LeaveRequest request) implements SessionEffect {
        public SendLeave {
            Objects.requireNonNull(request, "request");
        }
    }

    /**
     * The session is over, report it to the application: {@code error} NONE after a shutdown, else the reason the
     * coordinator refused us for good (e.g. INVALID_REGISTRATION), which retrying cannot fix.
     */
    record Terminate(ErrorCode error, String reason) implements SessionEffect {
        public Terminate {
            Objects.requireNonNull(error, "error");
            Objects.requireNonNull(reason, "reason");
        }
    }
}
