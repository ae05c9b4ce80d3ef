package shepherd.protocol;

/**
 * {@code topic:string, partition:string, offset:int64}: the next offset to consume in a partition (partition ids
 * are strings {@code "<brokerId>-<n>"}, as in the seed).
 */
public record PartitionOffset(String topic, String partition, long offset) {
    public PartitionOffset {
        Checks.notNull(topic, "PartitionOffset.topic");
        Checks.notNull(partition, "PartitionOffset.partition");
    }
}
