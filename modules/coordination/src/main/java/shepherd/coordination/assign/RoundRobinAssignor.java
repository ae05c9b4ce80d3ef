package shepherd.coordination.assign;

import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code roundrobin}: Kafka's {@code RoundRobinAssignor}. Every (topic, partition) of every subscribed topic, sorted
 * by topic then partition, is dealt in turn to the next stream of one ring holding all streams in sorted order;
 * a stream not subscribed to the partition's topic is skipped. The ring's position carries over from one topic to
 * the next.
 *
 * <p>Balance: when every stream is subscribed to the same topics, each stream's total count, and its count in each
 * topic, is the floor or the ceiling of the average: they differ by at most one. (A run of L consecutive deals over
 * a ring of S streams gives each stream ⌊L/S⌋ or ⌈L/S⌉.) With differing subscriptions there is no such bound:
 * Kafka's example gives C2 four partitions and C0 one.
 *
 * <p>Kafka finds the next subscribed stream by stepping around the ring, O(P × S) at worst. Here each topic knows
 * the ring positions of its streams (sorted), the first owner of a topic is found by binary search from the ring
 * position, and each further partition goes to the topic's next stream: O(P + Σ S_topic + T log S), same result.
 */
public final class RoundRobinAssignor implements Assignor {
    public static final String NAME = "roundrobin";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Assignment assign(AssignmentInput input) {
        StreamId[] ring = input.allStreams().toArray(new StreamId[0]);
        Map<StreamId, Integer> ringPosition = new HashMap<>(ring.length * 2);
        for (int i = 0; i < ring.length; i++) {
            ringPosition.put(ring[i], i);
        }
        Assignment.Builder assignment = Assignment.builder(input.partitionCount());
        // Topics with equal subscribers share one list instance (AssignmentInput), so map each list once.
        Map<List<StreamId>, int[]> positionsOf = new IdentityHashMap<>();
        int next = 0; // the ring position the next deal starts looking at
        for (String topic : input.assignableTopics()) {
            List<StreamId> streams = input.streams(topic);
            int[] positions = positionsOf.computeIfAbsent(streams, s -> ringPositions(s, ringPosition));
            next = dealTopic(topic, input.partitions(topic), streams, positions, next, assignment);
            next %= ring.length;
        }
        return assignment.build();
    }

    /** The ring positions of {@code streams}; ascending, since streams and ring share one order. */
    private static int[] ringPositions(List<StreamId> streams, Map<StreamId, Integer> ringPosition) {
        int[] positions = new int[streams.size()];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = ringPosition.get(streams.get(i));
        }
        return positions;
    }

    /** Deals {@code topic}'s partitions from ring position {@code next}; returns the position after the last owner. */
    private static int dealTopic(
            String topic,
            List<PartitionId> partitions,
            List<StreamId> streams,
            int[] positions,
            int next,
            Assignment.Builder assignment) {
        int found = Arrays.binarySearch(positions, next);
        int i = found >= 0 ? found : -found - 1; // first subscribed position >= next
        int last = next;
        for (PartitionId partition : partitions) {
            if (i == positions.length) {
                i = 0; // past the end of the ring: wrap to this topic's first stream
            }
            assignment.assign(new TopicPartition(topic, partition), streams.get(i));
            last = positions[i];
            i++;
        }
        return last + 1;
    }
}
