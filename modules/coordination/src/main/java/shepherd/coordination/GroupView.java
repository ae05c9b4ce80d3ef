package shepherd.coordination;

import java.util.Collections;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;

/**
 * A read-only snapshot of one group for status pages, tests and checkers.
 *
 * @param members   the members, registered with this epoch or recorded by an earlier one
 * @param connected the members this coordinator can command
 * @param started   consumer id → the generation whose Start it acknowledged in this epoch
 */
public record GroupView(
        String group, int generation, TriggerState trigger, boolean running, SortedSet<String> members,
        SortedSet<String> connected, SortedMap<String, Integer> started, SortedMap<TopicPartition, StreamId> owners,
        SortedMap<TopicPartition, Long> offsets) {

    static GroupView of(GroupState g) {
        TreeSet<String> connected = new TreeSet<>();
        TreeMap<String, Integer> started = new TreeMap<>();
        g.members.values().forEach(m -> {
            if (m.connected()) {
                connected.add(m.consumerId);
            }
            started.put(m.consumerId, m.startedGeneration);
        });
        return new GroupView(g.id, g.generation, g.trigger, g.run != null,
                Collections.unmodifiableSortedSet(new TreeSet<>(g.members.keySet())),
                Collections.unmodifiableSortedSet(connected), Collections.unmodifiableSortedMap(started),
                Collections.unmodifiableSortedMap(new TreeMap<>(g.owners)),
                Collections.unmodifiableSortedMap(new TreeMap<>(g.offsets)));
    }

    /** Every member connected, started in the current generation, and the owners match a run's result. */
    public boolean stable() {
        return !running() && trigger == TriggerState.IDLE && connected.equals(members)
                && started.values().stream().allMatch(s -> s == generation);
    }
}
