package shepherd.coordination.assign;

import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code sticky}: balanced exactly like {@code range}, and among all such assignments the one that moves the fewest
 * partitions away from their current owners.
 *
 * <p>Each topic on its own, with P partitions and S streams ({@code f = P / S}, {@code extra = P % S}):
 * <ol>
 *   <li><b>Owned.</b> A partition counts as owned by its current owner if that stream is still subscribed to the
 *       topic; owners that left, and partitions that no longer exist, are ignored.
 *   <li><b>Quotas.</b> Every stream may hold f; {@code extra} streams may hold f + 1. The ceilings go to the
 *       streams that own the most, ties broken by stream order.
 *   <li><b>Keep.</b> Each stream keeps its owned partitions, lowest first, up to its quota; the rest are revoked.
 *   <li><b>Fill.</b> The partitions without an owner, in partition order, go to the streams below quota in stream
 *       order, each filled to its quota before the next.
 * </ol>
 *
 * <p>Why this is the minimum: any assignment balanced like range gives each stream a quota q (f, or f + 1 for
 * {@code extra} streams), and a stream can keep at most {@code min(owned, q)} of what it owns. Granting a stream the
 * ceiling raises that bound by one exactly when it owns more than f, so granting the ceilings to the largest owners
 * maximises the sum of the bounds, and step 3 reaches every bound. Moves = owned − kept is therefore the least any
 * balanced assignor can achieve, whatever changed: a member joining, leaving, partitions added. The full argument is
 * in docs/assignors.md. Applied to its own output it changes nothing. O(P + S log S) per topic.
 */
public final class StickyAssignor implements Assignor {
    public static final String NAME = "sticky";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Assignment assign(AssignmentInput input) {
        Assignment.Builder assignment = Assignment.builder(input.partitionCount());
        // Topics with equal subscribers share one list instance (AssignmentInput), so index each list once.
        Map<List<StreamId>, Map<StreamId, Integer>> indexOf = new IdentityHashMap<>();
        for (String topic : input.assignableTopics()) {
            List<StreamId> streams = input.streams(topic);
            Map<StreamId, Integer> index = input.currentOwners().isEmpty()
                    ? Map.of() : indexOf.computeIfAbsent(streams, StickyAssignor::index);
            assignTopic(topic, input.partitions(topic), streams, index, input.currentOwners(), assignment);
        }
        return assignment.build();
    }

    private static void assignTopic(
            String topic,
            List<PartitionId> partitions,
            List<StreamId> streams,
            Map<StreamId, Integer> index,
            Map<TopicPartition, StreamId> currentOwners,
            Assignment.Builder assignment) {
        int[] previousOwner = previousOwners(topic, partitions, index, currentOwners);
        int[] owned = new int[streams.size()];
        for (int owner : previousOwner) {
            if (owner >= 0) {
                owned[owner]++;
            }
        }
        int[] quota = quotas(partitions.size(), owned);
        int[] owner = new int[partitions.size()];
        int[] held = new int[streams.size()];
        for (int p = 0; p < owner.length; p++) { // keep, lowest partitions first
            int s = previousOwner[p];
            owner[p] = s >= 0 && held[s] < quota[s] ? s : -1;
            if (owner[p] >= 0) {
                held[s]++;
            }
        }
        int s = 0;
        for (int p = 0; p < owner.length; p++) { // fill; the quotas sum to P, so s never runs off the end
            if (owner[p] < 0) {
                while (held[s] == quota[s]) {
                    s++;
                }
                owner[p] = s;
                held[s]++;
            }
        }
        for (int p = 0; p < owner.length; p++) {
            assignment.assign(new TopicPartition(topic, partitions.get(p)), streams.get(owner[p]));
        }
    }

    private static Map<StreamId, Integer> index(List<StreamId> streams) {
        Map<StreamId, Integer> index = new HashMap<>(streams.size() * 2);
        for (int i = 0; i < streams.size(); i++) {
            index.put(streams.get(i), i);
        }
        return index;
    }

    /** For each partition, the index (in {@code index}) of its current owner, or −1 if it has none there. */
    private static int[] previousOwners(
            String topic, List<PartitionId> partitions, Map<StreamId, Integer> index,
            Map<TopicPartition, StreamId> currentOwners) {
        int[] previous = new int[partitions.size()];
        if (currentOwners.isEmpty()) {
            Arrays.fill(previous, -1);
            return previous;
        }
        for (int p = 0; p < previous.length; p++) {
            StreamId current = currentOwners.get(new TopicPartition(topic, partitions.get(p)));
            Integer i = current == null ? null : index.get(current);
            previous[p] = i == null ? -1 : i;
        }
        return previous;
    }

    /**
     * Quota per stream: {@code P / S}, plus one for the {@code P % S} streams owning the most (ties: stream order).
     * Deterministic, and it maximises Σ min(owned, quota): see the class comment.
     */
    static int[] quotas(int partitionCount, int[] owned) {
        int streamCount = owned.length;
        int[] quota = new int[streamCount];
        Arrays.fill(quota, partitionCount / streamCount);
        int extra = partitionCount % streamCount;
        if (extra > 0) {
            Integer[] byOwnedDescending = new Integer[streamCount];
            for (int i = 0; i < streamCount; i++) {
                byOwnedDescending[i] = i;
            }
            Arrays.sort(byOwnedDescending, (a, b) -> owned[a] != owned[b] ? Integer.compare(owned[b], owned[a])
                    : Integer.compare(a, b));
            for (int k = 0; k < extra; k++) {
                quota[byOwnedDescending[k]]++;
            }
        }
        return quota;
    }
}
