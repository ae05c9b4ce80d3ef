package shepherd.protocol;

/**
 * {@code topic:string, partition:string, offset:int64, stream:int32}: a partition a Start hands to the consumer,
 * the offset to start at, and the index of the consumer's stream that receives it.
 */
public record PartitionAssignment(String topic, String partition, long offset, int stream) {
    public PartitionAssignment {
        Checks.notNull(topic, "PartitionAssignment.topic");
        Checks.notNull(partition, "PartitionAssignment.partition");
    }
}
