package shepherd.testkit;

/**
 * {@link Invariant#FencedWrites}, judged on ZooKeeper's commits: each epoch write must raise the epoch, only the
 * session that made the current epoch current may commit coordinator writes, and a committed offset never goes back
 * and is written only for the partition's owner.
 */
final class FencingChecks {
    private final ViolationLog log;
    private final EpochChecks epochs;
    private boolean epochBumpedOnce;
    private int currentEpoch;
    /** The ZooKeeper session whose commit made {@link #currentEpoch} current. */
    private long currentEpochSession;

    FencingChecks(ViolationLog log, EpochChecks epochs) {
        this.log = log;
        this.epochs = epochs;
    }

    void epochBumped(long sessionId, String brokerIncarnation, int epoch, long nowMs) {
        if (!log.check("epochBumped", nowMs).id("brokerIncarnation", brokerIncarnation).nonNegative("epoch", epoch)
                .ok()) {
            return;
        }
        epochs.claim(brokerIncarnation, epoch, nowMs, "bumped the epoch to it");
        if (epochBumpedOnce && epoch <= currentEpoch) {
            log.record(Invariant.FencedWrites, nowMs, "session " + session(sessionId) + " of " + brokerIncarnation
                    + " committed epoch " + epoch + " although epoch " + currentEpoch + " was already current");
            return;
        }
        epochBumpedOnce = true;
        currentEpoch = epoch;
        currentEpochSession = sessionId;
    }

    void coordinatorWriteCommitted(long sessionId, String group, long nowMs) {
        if (!log.check("coordinatorWriteCommitted", nowMs).id("group", group).ok()) {
            return;
        }
        if (!epochBumpedOnce) {
            log.record(Invariant.FencedWrites, nowMs, "session " + session(sessionId)
                    + " committed a coordinator write for group " + group + " before any epoch was bumped");
        } else if (sessionId != currentEpochSession) {
            log.record(Invariant.FencedWrites, nowMs, "session " + session(sessionId)
                    + " committed a coordinator write for group " + group + " but the current epoch " + currentEpoch
                    + " was bumped by session " + session(currentEpochSession));
        }
    }

    void offsetCommitted(String group, String topic, String partition, Long previousOffset, long newOffset,
            String reportedByConsumerId, String ownerConsumerIdAtCommit, long nowMs) {
        ObservationCheck check = log.check("offsetCommitted", nowMs).id("group", group).id("topic", topic)
                .id("partition", partition).nonNegative("newOffset", newOffset);
        if (previousOffset != null) {
            check.nonNegative("previousOffset", previousOffset);
        }
        if (!check.ok()) {
            return;
        }
        PartitionKey key = new PartitionKey(group, topic, partition);
        if (previousOffset != null && newOffset < previousOffset) {
            log.record(Invariant.FencedWrites, nowMs, "offset of " + key + " went back from " + previousOffset
                    + " to " + newOffset
                    + (reportedByConsumerId == null ? "" : " (reported by " + reportedByConsumerId + ")"));
        }
        if (reportedByConsumerId != null && !reportedByConsumerId.equals(ownerConsumerIdAtCommit)) {
            log.record(Invariant.FencedWrites, nowMs, "offset " + newOffset + " of " + key + " reported by "
                    + reportedByConsumerId + " committed while "
                    + (ownerConsumerIdAtCommit == null ? "nobody" : ownerConsumerIdAtCommit) + " owned it");
        }
    }

    private static String session(long sessionId) {
        return "0x" + Long.toHexString(sessionId);
    }
}
