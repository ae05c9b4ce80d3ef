package shepherd.coordination;

import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;

/**
 * One group's subtree as read from ZooKeeper: {@code /consumers/groups/[g]} with its registrations, owners and
 * offsets. The adapter reads it whole (and arms the member-change watch) when the coordinator asks; garbage in a
 * znode has already been logged and skipped by then (DESIGN §4).
 *
 * @param generation    the generation of the last owners written; 0 for a new group
 * @param assignor      the group's assignor name
 * @param registrations consumer id → registration
 * @param owners        partition → owning stream
 * @param offsets       partition → committed next offset
 */
public record GroupSnapshot(
        int generation, String assignor, SortedMap<String, Registration> registrations,
        SortedMap<TopicPartition, StreamId> owners, SortedMap<TopicPartition, Long> offsets) {

    public GroupSnapshot {
        Objects.requireNonNull(assignor, "assignor");
        if (generation < 0) {
            throw new IllegalArgumentException("generation must be at least 0, got " + generation);
        }
        registrations = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(registrations));
        owners = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(owners));
        offsets = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(offsets));
    }

    /** A group that exists only as {@code /consumers/groups/[g]}. */
    public static GroupSnapshot empty(String assignor) {
        return new GroupSnapshot(0, assignor, new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
    }

    public static GroupSnapshot of(int generation, String assignor, Map<String, Registration> registrations,
            Map<TopicPartition, StreamId> owners, Map<TopicPartition, Long> offsets) {
        return new GroupSnapshot(generation, assignor, new TreeMap<>(registrations), new TreeMap<>(owners),
                new TreeMap<>(offsets));
    }
}
