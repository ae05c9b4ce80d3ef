package shepherd.coordination.assign;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Movement accounting for sticky (docs/assignors.md): a partition <em>moves</em> when its current owner is still
 * subscribed to its topic and the new assignment gives it to another stream. Partitions that had no owner, or whose
 * owner left, are <em>placed</em>, not moved: every assignor must place them somewhere.
 */
final class Moves {
    private Moves() {}

    static int moved(AssignmentInput input, Assignment next) {
        int moved = 0;
        for (String topic : input.assignableTopics()) {
            Set<StreamId> subscribed = new HashSet<>(input.streams(topic));
            for (PartitionId partition : input.partitions(topic)) {
                TopicPartition tp = new TopicPartition(topic, partition);
                StreamId owner = input.currentOwners().get(tp);
                if (owner != null && subscribed.contains(owner) && !owner.equals(next.owners().get(tp))) {
                    moved++;
                }
            }
        }
        return moved;
    }

    /**
     * The fewest moves any assignment balanced like range can make: per topic, Σ owned − max over quota vectors of
     * Σ min(owned, quota), the maximum taken by giving the P mod S ceilings to the largest owners.
     */
    static int lowerBound(AssignmentInput input) {
        int bound = 0;
        for (String topic : input.assignableTopics()) {
            List<Integer> owned = new ArrayList<>(ownedCounts(input, topic).values());
            owned.sort((a, b) -> Integer.compare(b, a));
            int partitions = input.partitions(topic).size();
            int streams = input.streams(topic).size();
            int floor = partitions / streams;
            int extra = partitions % streams;
            for (int i = 0; i < owned.size(); i++) {
                int quota = floor + (i < extra ? 1 : 0);
                bound += Math.max(0, owned.get(i) - quota);
            }
        }
        return bound;
    }

    /** As {@link #lowerBound}, but trying every choice of the streams that get the ceiling; topics with S ≤ 12. */
    static int lowerBoundByBruteForce(AssignmentInput input) {
        int bound = 0;
        for (String topic : input.assignableTopics()) {
            Map<StreamId, Integer> owned = ownedCounts(input, topic);
            List<StreamId> streams = input.streams(topic);
            if (streams.size() > 12) {
                throw new IllegalArgumentException("brute force is for small topics, " + topic + " has " + streams.size());
            }
            int partitions = input.partitions(topic).size();
            int floor = partitions / streams.size();
            int extra = partitions % streams.size();
            int best = Integer.MAX_VALUE;
            for (int ceilings = 0; ceilings < 1 << streams.size(); ceilings++) {
                if (Integer.bitCount(ceilings) != extra) {
                    continue;
                }
                int moves = 0;
                for (int i = 0; i < streams.size(); i++) {
                    int quota = floor + ((ceilings >> i) & 1);
                    moves += Math.max(0, owned.getOrDefault(streams.get(i), 0) - quota);
                }
                best = Math.min(best, moves);
            }
            bound += best;
        }
        return bound;
    }

    /** Subscribed stream → how many existing partitions of {@code topic} it owns now (zeros included). */
    private static Map<StreamId, Integer> ownedCounts(AssignmentInput input, String topic) {
        Map<StreamId, Integer> owned = new HashMap<>();
        input.streams(topic).forEach(s -> owned.put(s, 0));
        for (PartitionId partition : input.partitions(topic)) {
            StreamId owner = input.currentOwners().get(new TopicPartition(topic, partition));
            if (owner != null && owned.containsKey(owner)) {
                owned.merge(owner, 1, Integer::sum);
            }
        }
        return owned;
    }
}
