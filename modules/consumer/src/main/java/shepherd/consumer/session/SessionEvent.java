package shepherd.consumer.session;

import java.util.List;
import java.util.Objects;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Request;

/**
 * What the runtime tells the core. Offsets "the application has taken" travel with the events that need them
 * ({@code taken}): the runtime reads them when it builds the event, so the core never calls back into it.
 */
public sealed interface SessionEvent {

    /** The application created the consumer: begin discovery (seed consumerStartup). */
    record Started(SessionConfig config) implements SessionEvent {
        public Started {
            Objects.requireNonNull(config, "config");
        }
    }

    /** A broker answered our Consult; the runtime closes that one-shot connection itself. */
    record ConsultAnswered(int brokerId, ConsultResponse response) implements SessionEvent {
        public ConsultAnswered {
            Objects.requireNonNull(response, "response");
        }
    }

    /** The Consult to {@code brokerId} got no answer: no connection (seed step 1.1), a timeout, a closed socket. */
    record ConsultFailed(int brokerId, String reason) implements SessionEvent {
        public ConsultFailed {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** The connection to the coordinator asked for by {@link SessionEffect.Connect} is open. */
    record Connected(int brokerId) implements SessionEvent {}

    /** The coordinator connection closed, or could not be opened. */
    record ConnectionClosed(int brokerId) implements SessionEvent {}

    /** The coordinator answered our Register. */
    record RegisterAnswered(RegisterResponse response) implements SessionEvent {
        public RegisterAnswered {
            Objects.requireNonNull(response, "response");
        }
    }

    /** The coordinator answered our Leave: {@code NONE} once the final offsets and the removal are written. */
    record LeaveAnswered(LeaveResponse response) implements SessionEvent {
        public LeaveAnswered {
            Objects.requireNonNull(response, "response");
        }
    }

    /**
     * The coordinator sent a request (Ping, Stop or Start) on our connection. {@code taken}: the offsets the
     * application has taken so far (next offset to consume, per partition), for the Ping and Stop responses; the
     * runtime leaves it empty for a Start, whose answer carries none.
     */
    record RequestReceived(int correlationId, Request request, List<PartitionOffset> taken) implements SessionEvent {
        public RequestReceived {
            Objects.requireNonNull(request, "request");
            taken = List.copyOf(taken);
        }
    }

    /**
     * Every fetcher asked to stop by {@link SessionEffect.StopFetchers} for {@code generation} is closed and its
     * queues cleared; {@code taken} is now final for that generation (nothing is left for the application to take).
     */
    record FetchersStopped(int generation, List<PartitionOffset> taken) implements SessionEvent {
        public FetchersStopped {
            taken = List.copyOf(taken);
        }
    }

    /** A timer set with {@link SessionEffect.SetTimer} reached its deadline. */
    record TimerFired(TimerKey key) implements SessionEvent {
        public TimerFired {
            Objects.requireNonNull(key, "key");
        }
    }

    /** The application called shutdown(); {@code taken} are its offsets if no fetcher is running any more. */
    record ShutdownRequested(List<PartitionOffset> taken) implements SessionEvent {
        public ShutdownRequested {
            taken = List.copyOf(taken);
        }
    }
}
