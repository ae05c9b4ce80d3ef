package shepherd.coordination.group;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.TopicPartition;

/**
 * The topics and their partitions as last read from {@code /brokers/topics}. Each topic's partitions are held
 * sorted and distinct, so that {@link #has} is a binary search: a linear {@code contains} per owned partition made
 * the necessity check's step 3.3 quadratic in a group's partitions (77 ms of the loop per two rebalances at 8,192).
 */
public final class Topics {
    private final TreeMap<String, List<PartitionId>> partitions = new TreeMap<>();

    /** Replaces every topic; returns the topics whose partitions changed (appeared, vanished or differ). */
    public Set<String> replaceAll(Map<String, List<PartitionId>> partitionsByTopic) {
        Set<String> all = new TreeSet<>(partitions.keySet());
        all.addAll(partitionsByTopic.keySet());
        Set<String> changed = new TreeSet<>();
        for (String topic : all) {
            List<PartitionId> now = sorted(partitionsByTopic.getOrDefault(topic, List.of()));
            if (!now.equals(partitions.getOrDefault(topic, List.of()))) {
                changed.add(topic);
            }
        }
        partitions.clear();
        partitionsByTopic.forEach((topic, ps) -> partitions.put(topic, sorted(ps)));
        return changed;
    }

    /** Replaces one topic (none: it vanished, D12); whether it changed. */
    public boolean replace(String topic, List<PartitionId> read) {
        List<PartitionId> next = sorted(read);
        if (next.equals(partitions.getOrDefault(topic, List.of()))) {
            return false;
        }
        if (next.isEmpty()) {
            partitions.remove(topic); // check 3.3 drops its owners
        } else {
            partitions.put(topic, next);
        }
        return true;
    }

    public void clear() {
        partitions.clear();
    }

    Set<String> names() {
        return Collections.unmodifiableSet(partitions.keySet());
    }

    /** The topic's partitions, sorted; null if there is no such topic. */
    List<PartitionId> of(String topic) {
        return partitions.get(topic);
    }

    /** The topic, as last read, still has the partition. */
    boolean has(TopicPartition tp) {
        List<PartitionId> ps = partitions.get(tp.topic());
        return ps != null && Collections.binarySearch(ps, tp.partition()) >= 0;
    }

    private static List<PartitionId> sorted(Collection<PartitionId> partitions) {
        return partitions.stream().sorted().distinct().toList();
    }
}
