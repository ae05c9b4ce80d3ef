package shepherd.protocol;

/**
 * One partition in a GroupDescription: {@code topic:string, partition:string, owner:string (nullable),
 * stream:int32, committed_offset:int64}. {@code owner} is the consumer id that owns the partition in the group's
 * current generation, null if nobody does ({@code stream} is then {@link #NO_STREAM}); {@code committedOffset} is
 * the next offset to consume as committed, {@link #OFFSET_NONE} if none is.
 */
public record PartitionDescription(String topic, String partition, String owner, int stream, long committedOffset) {
    /** {@code stream} of a partition without an owner. */
    public static final int NO_STREAM = -1;
    /** {@code committed_offset} of a partition without a committed offset. */
    public static final long OFFSET_NONE = -1;

    public PartitionDescription {
        Checks.notNull(topic, "PartitionDescription.topic");
        Checks.notNull(partition, "PartitionDescription.partition");
    }
}
