package shepherd.chaos.history;

/**
 * One fact of a chaos run, stamped with {@code nanoTime}: {@link System#nanoTime()} of the process that saw it,
 * which on one machine is one monotonic clock for every process, so entries of many processes merge into one order.
 */
public sealed interface Entry {
    long nanoTime();

    /** A consumer began fetching a partition for generation {@code generation} of coordinator {@code epoch}. */
    record FetchStarted(long nanoTime, String group, String consumer, String topic, String partition, int epoch,
                        int generation, long offset) implements Entry {}

    /** A consumer stopped fetching: nothing of the partition is delivered by it after {@code nanoTime}. */
    record FetchStopped(long nanoTime, String group, String consumer, String topic, String partition, int epoch,
                        int generation, long nextOffset) implements Entry {}

    /** The application of a consumer took a record. */
    record Delivered(long nanoTime, String group, String consumer, String topic, String partition, long offset,
                     int generation) implements Entry {}

    /** A consumer refused a coordinator command ({@code error}, e.g. STALE_COORDINATOR_EPOCH). */
    record Rejected(long nanoTime, String group, String consumer, String command, int epoch, String error)
            implements Entry {}

    /** A consumer's session saw coordinator epoch {@code epoch} (any event it accepted carries it). */
    record EpochSeen(long nanoTime, String group, String consumer, int epoch) implements Entry {}

    /** A consumer process died without a goodbye (SIGKILL): its open fetches end here. */
    record Died(long nanoTime, String group, String consumer) implements Entry {}

    /** The workload appended {@code offset} to a partition's log. */
    record Produced(long nanoTime, String topic, String partition, long offset) implements Entry {}

    /** A broker won an election: epoch {@code epoch} is its; {@code zxid} is the epoch bump's. */
    record Elected(long nanoTime, int broker, int epoch, long zxid) implements Entry {}

    /** A coordinator write committed in ZooKeeper under {@code epoch} at {@code zxid}. */
    record Written(long nanoTime, int broker, int epoch, long zxid, String what) implements Entry {}

    /** A reading of a committed offset in ZooKeeper (the run samples them). */
    record OffsetRead(long nanoTime, String group, String topic, String partition, long offset) implements Entry {}

    /** A reading of a partition's owner in ZooKeeper: {@code consumer} owns it in {@code generation}. */
    record OwnerRead(long nanoTime, String group, String topic, String partition, String consumer, int generation)
            implements Entry {}

    /** The last fault was healed at {@code nanoTime}: liveness is judged from here. */
    record Healed(long nanoTime) implements Entry {}

    /**
     * A broker's own account of a fact (its log line): {@code event} is one of {@code election won},
     * {@code role changed}, {@code zookeeper disconnected}, {@code zookeeper reconnected},
     * {@code zookeeper session expired}, {@code rebalance ended}, {@code handed over}, {@code notice}; {@code detail}
     * is the rest of the line. Stamped from the log's wall clock, so ordered with the others to a millisecond only.
     */
    record BrokerEvent(long nanoTime, int broker, String event, String detail) implements Entry {}

    /** A nemesis acted: {@code action} is {@code inject} or {@code heal}; {@code detail} names its targets. */
    record Fault(long nanoTime, String nemesis, String action, String detail) implements Entry {}
}
