package shepherd.cli.demo;

/**
 * A change of coordinator the script caused, timed from the loss (broker halted, session expired).
 *
 * @param electedAfterMs loss → a broker coordinates under a higher epoch (LOADING)
 * @param leaseWaitMs    how long that broker was seen in LEASE_WAIT (0 when skipped or too short to see)
 * @param activeAfterMs  loss → that broker ACTIVE: the failover time
 */
public record Failover(String cause, int fromBroker, int fromEpoch, int toBroker, int toEpoch, long electedAfterMs,
                       long leaseWaitMs, long activeAfterMs) {

    String describe() {
        return String.format("broker %d (epoch %d) -> broker %d (epoch %d): elected after %,d ms, lease wait %,d ms,"
                + " active after %,d ms (%s)", fromBroker, fromEpoch, toBroker, toEpoch, electedAfterMs, leaseWaitMs,
                activeAfterMs, cause);
    }
}
