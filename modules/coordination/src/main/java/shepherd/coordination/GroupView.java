package shepherd.coordination;

import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;

/**
 * A read-only snapshot of one group for status pages, tests and checkers.
 *
 * @param members   the members, registered with this epoch or recorded by an earlier one
 * @param connected the members this coordinator can command
 * @param started   consumer id → the generation whose Start it acknowledged in this epoch
 * @param awaiting  what waits for the group's writes to be durable, oldest first (an answer, the Starts of a
 *                  run, a re-read)
 */
public record GroupView(
        String group, int generation, TriggerState trigger, boolean running, SortedSet<String> members,
        SortedSet<String> connected, SortedMap<String, Integer> started, SortedMap<TopicPartition, StreamId> owners,
        SortedMap<TopicPartition, Long> offsets, List<String> awaiting) {

    /** Every member connected, started in the current generation, and the owners match a run's result. */
    public boolean stable() {
        return !running() && trigger == TriggerState.IDLE && connected.equals(members)
                && started.values().stream().allMatch(s -> s == generation);
    }
}
