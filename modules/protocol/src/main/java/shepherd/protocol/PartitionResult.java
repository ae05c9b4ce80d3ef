package shepherd.protocol;

/** {@code topic:string, partition:string, error_code:int16}: the outcome of committing one partition's offset. */
public record PartitionResult(String topic, String partition, ErrorCode errorCode) {
    public PartitionResult {
        Checks.notNull(topic, "PartitionResult.topic");
        Checks.notNull(partition, "PartitionResult.partition");
        Checks.notNull(errorCode, "PartitionResult.errorCode");
    }
}
