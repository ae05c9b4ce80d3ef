package shepherd.consumer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * One record handed to the application: where it comes from ({@code topic}, {@code partition} id
 * {@code "<brokerId>-<n>"}, {@code offset}) and its bytes. Taking it from a stream advances the partition's
 * consumed offset to {@code offset + 1}, which auto-commit reports.
 */
public final class ConsumerRecord {
    private final String topic;
    private final String partition;
    private final long offset;
    private final int generation;
    private final byte[] value;

    public ConsumerRecord(String topic, String partition, long offset, int generation, byte[] value) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.partition = Objects.requireNonNull(partition, "partition");
        this.offset = offset;
        this.generation = generation;
        this.value = Objects.requireNonNull(value, "value");
    }

    public String topic() {
        return topic;
    }

    public String partition() {
        return partition;
    }

    public long offset() {
        return offset;
    }

    /**
     * The group generation whose Start assigned this partition to us: within one generation a partition has one
     * owner, so (partition, generation) names who delivered a record.
     */
    public int generation() {
        return generation;
    }

    /** A copy of the record's bytes. */
    public byte[] value() {
        return value.clone();
    }

    /** The bytes as UTF-8 text. */
    public String valueAsString() {
        return new String(value, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConsumerRecord r && r.offset == offset && r.topic.equals(topic)
                && r.partition.equals(partition) && Arrays.equals(r.value, value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, offset) * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return topic + "/" + partition + "@" + offset + " g" + generation + " (" + value.length + " bytes)";
    }
}
