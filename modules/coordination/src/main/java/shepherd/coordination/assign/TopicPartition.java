package shepherd.coordination.assign;

import java.util.Objects;

/** One partition of one topic: the unit an assignor hands out. Ordered by topic name, then partition. */
public record TopicPartition(String topic, PartitionId partition) implements Comparable<TopicPartition> {
    public TopicPartition {
        Objects.requireNonNull(topic, "TopicPartition.topic must not be null");
        Objects.requireNonNull(partition, "TopicPartition.partition must not be null");
    }

    /** {@code topic} with the partition parsed from its id string ({@link PartitionId#parse}). */
    public static TopicPartition of(String topic, String partitionId) {
        return new TopicPartition(topic, PartitionId.parse(partitionId));
    }

    @Override
    public int compareTo(TopicPartition other) {
        int byTopic = topic.compareTo(other.topic);
        return byTopic != 0 ? byTopic : partition.compareTo(other.partition);
    }

    @Override
    public int hashCode() {
        return topic.hashCode() * 0x9E3779B1 + partition.hashCode();
    }

    @Override
    public String toString() {
        return topic + "/" + partition;
    }
}
