package shepherd.consumer;

import java.util.Map;

/**
 * The seed's {@code AllKnownBrokersNotAvailable}, thrown only to a caller that asked for a bounded wait
 * ({@link ShepherdConsumer#awaitRegistered}): no broker answered a Consult in that time. The consumer itself keeps
 * trying, with backoff, until it is shut down.
 */
public final class AllKnownBrokersNotAvailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Map<String, String> lastFailures;

    public AllKnownBrokersNotAvailableException(String message, Map<String, String> lastFailures) {
        super(message + "; last failure per broker: " + lastFailures);
        this.lastFailures = Map.copyOf(lastFailures);
    }

    /** Per broker address, the last reason its Consult failed. */
    public Map<String, String> lastFailures() {
        return lastFailures;
    }
}
