package shepherd.coordination.assign;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static shepherd.coordination.assign.Examples.byStream;
import static shepherd.coordination.assign.Examples.expect;
import static shepherd.coordination.assign.Examples.onBroker0;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The worked example of docs/assignors.md, step by step. */
class StickyAssignorTest {
    private final Assignor sticky = new StickyAssignor();
    private final Map<String, List<PartitionId>> sevenPartitions = Map.of("t", onBroker0(7));

    @Test
    void withoutOwnersItIsRange() {
        AssignmentInput input = AssignmentInput.fromSubscriptions(
                sevenPartitions, Map.of("a", Map.of("t", 1), "b", Map.of("t", 1)), Map.of());
        assertEquals(expect(
                "a-0", List.of("t/0-0", "t/0-1", "t/0-2", "t/0-3"),
                "b-0", List.of("t/0-4", "t/0-5", "t/0-6")), byStream(sticky.assign(input)));
    }

    /** c joins a (4) and b (3): quotas 3, 2, 2 (a owns most, so a keeps the ceiling); a gives 0-3, b gives 0-6. */
    @Test
    void aJoiningMemberTakesOnlyWhatBalanceRequires() {
        Assignment before = sticky.assign(AssignmentInput.fromSubscriptions(
                sevenPartitions, Map.of("a", Map.of("t", 1), "b", Map.of("t", 1)), Map.of()));
        AssignmentInput input = AssignmentInput.fromSubscriptions(
                sevenPartitions, Map.of("a", Map.of("t", 1), "b", Map.of("t", 1), "c", Map.of("t", 1)), before.owners());
        Assignment after = sticky.assign(input);
        assertEquals(expect(
                "a-0", List.of("t/0-0", "t/0-1", "t/0-2"),
                "b-0", List.of("t/0-4", "t/0-5"),
                "c-0", List.of("t/0-3", "t/0-6")), byStream(after));
        assertEquals(2, Moves.moved(input, after));
        assertEquals(2, Moves.lowerBound(input));
    }

    /** a leaves a (3), b (2), c (2): quotas 4 and 3, b and c keep theirs, a's three are placed, nothing moves. */
    @Test
    void aLeavingMemberMovesNothingElse() {
        AssignmentInput three = AssignmentInput.fromSubscriptions(
                sevenPartitions, Map.of("a", Map.of("t", 1), "b", Map.of("t", 1), "c", Map.of("t", 1)), Map.of());
        Assignment before = sticky.assign(three);
        AssignmentInput input = AssignmentInput.fromSubscriptions(
                sevenPartitions, Map.of("b", Map.of("t", 1), "c", Map.of("t", 1)), before.owners());
        Assignment after = sticky.assign(input);
        assertEquals(expect(
                "a-0", List.of("t/0-0", "t/0-1", "t/0-2"),
                "b-0", List.of("t/0-3", "t/0-4"),
                "c-0", List.of("t/0-5", "t/0-6")), byStream(before));
        assertEquals(expect(
                "b-0", List.of("t/0-0", "t/0-1", "t/0-3", "t/0-4"),
                "c-0", List.of("t/0-2", "t/0-5", "t/0-6")), byStream(after));
        assertEquals(0, Moves.moved(input, after));
    }

    @Test
    void ceilingsGoToTheLargestOwnersThenStreamOrder() {
        // 7 partitions, 3 streams: f = 2, extra = 1. Owned 1, 3, 3: the first of the two largest (index 1) gets 3.
        assertArrayEquals(new int[] {2, 3, 2}, StickyAssignor.quotas(7, new int[] {1, 3, 3}));
        // 8 over 3: extra = 2; owned 0, 0, 5: index 2 first, then index 0 by stream order.
        assertArrayEquals(new int[] {3, 2, 3}, StickyAssignor.quotas(8, new int[] {0, 0, 5}));
        assertArrayEquals(new int[] {2, 2}, StickyAssignor.quotas(4, new int[] {4, 0}));
    }
}
