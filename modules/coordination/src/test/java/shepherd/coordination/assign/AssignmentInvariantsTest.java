package shepherd.coordination.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static shepherd.coordination.assign.Examples.onBroker0;
import static shepherd.coordination.assign.Examples.streams;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import shepherd.coordination.assign.AssignmentInvariants.OwnedByUnsubscribed;
import shepherd.coordination.assign.AssignmentInvariants.Unbalanced;
import shepherd.coordination.assign.AssignmentInvariants.UnknownPartition;
import shepherd.coordination.assign.AssignmentInvariants.Unowned;

/**
 * Negative controls (CONVENTIONS 13): deliberately broken assignors, and a proof that the checks the properties rely
 * on report each of them. If a check went blind, the properties would pass vacuously; these tests would not.
 */
class AssignmentInvariantsTest {
    private static final AssignmentInput INPUT = AssignmentInput.of(
            Map.of("t0", onBroker0(4), "t1", onBroker0(3)),
            Map.of("t0", streams("a-0", "b-0"), "t1", streams("b-0")));

    /** Range, then forgets the last partition it assigned. */
    private static final Assignor DROPS_A_PARTITION = named("drops", input -> {
        Assignment.Builder builder = Assignment.builder(0);
        List<Map.Entry<TopicPartition, StreamId>> owned = List.copyOf(new RangeAssignor().assign(input).owners().entrySet());
        owned.subList(0, owned.size() - 1).forEach(e -> builder.assign(e.getKey(), e.getValue()));
        return builder.build();
    });

    /** Gives the first partition of every topic to both of its first two streams. */
    private static final Assignor DOUBLE_ASSIGNS = named("double", input -> {
        Assignment.Builder builder = Assignment.builder(0);
        for (String topic : input.assignableTopics()) {
            TopicPartition first = new TopicPartition(topic, input.partitions(topic).get(0));
            input.streams(topic).forEach(s -> builder.assign(first, s));
        }
        return builder.build();
    });

    /** Hands every partition to the first stream of the whole group, subscribed or not. */
    private static final Assignor IGNORES_SUBSCRIPTIONS = named("everything-to-one", input -> {
        StreamId first = input.allStreams().first();
        Assignment.Builder builder = Assignment.builder(0);
        input.assignableTopics().forEach(t -> input.partitions(t).forEach(p -> builder.assign(new TopicPartition(t, p), first)));
        return builder.build();
    });

    /** Gives each topic entirely to its first stream: well formed, not balanced. */
    private static final Assignor GREEDY = named("greedy", input -> {
        Assignment.Builder builder = Assignment.builder(0);
        input.assignableTopics().forEach(t ->
                input.partitions(t).forEach(p -> builder.assign(new TopicPartition(t, p), input.streams(t).get(0))));
        return builder.build();
    });

    @Test
    void theCorrectAssignorsPassTheChecks() {
        for (Assignor assignor : List.of(new RangeAssignor(), new RoundRobinAssignor(), new StickyAssignor(), GREEDY)) {
            assertEquals(List.of(), AssignmentInvariants.wellFormedViolations(INPUT, assignor.assign(INPUT)), assignor.name());
        }
    }

    @Test
    void aDroppedPartitionIsReported() {
        assertEquals(List.of(new Unowned(TopicPartition.of("t1", "0-2"))),
                AssignmentInvariants.wellFormedViolations(INPUT, DROPS_A_PARTITION.assign(INPUT)));
    }

    @Test
    void aDoubleAssignmentCannotBeBuilt() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> DOUBLE_ASSIGNS.assign(INPUT));
        assertEquals("partition t0/0-0 assigned twice: to a-0 and to b-0", e.getMessage());
    }

    @Test
    void anUnsubscribedOwnerIsReported() {
        // a-0 is not subscribed to t1.
        assertEquals(List.of(
                        new OwnedByUnsubscribed(TopicPartition.of("t1", "0-0"), StreamId.parse("a-0")),
                        new OwnedByUnsubscribed(TopicPartition.of("t1", "0-1"), StreamId.parse("a-0")),
                        new OwnedByUnsubscribed(TopicPartition.of("t1", "0-2"), StreamId.parse("a-0"))),
                AssignmentInvariants.wellFormedViolations(INPUT, IGNORES_SUBSCRIPTIONS.assign(INPUT)));
    }

    @Test
    void anUnknownPartitionIsReported() {
        Assignment assignment = Assignment.of(Map.of(TopicPartition.of("t0", "7-7"), StreamId.parse("a-0")));
        assertTrue(AssignmentInvariants.wellFormedViolations(INPUT, assignment)
                .contains(new UnknownPartition(TopicPartition.of("t0", "7-7"), StreamId.parse("a-0"))));
    }

    @Test
    void imbalanceIsReported() {
        assertEquals(List.of(new Unbalanced("t0", StreamId.parse("b-0"), 0, StreamId.parse("a-0"), 4)),
                AssignmentInvariants.balanceViolations(INPUT, GREEDY.assign(INPUT)));
    }

    /**
     * The movement accounting of the sticky properties catches an assignor that is balanced but not sticky: range,
     * when a member sorting first joins, shifts every run along (3 moves) where 1 is enough.
     */
    @Test
    void aNonStickyAssignorFailsTheMinimumMovementCheck() {
        Map<String, List<PartitionId>> partitions = Map.of("t", onBroker0(4));
        Assignment before = new RangeAssignor().assign(AssignmentInput.of(partitions, Map.of("t", streams("a-0", "b-0"))));
        AssignmentInput joined = AssignmentInput.of(partitions, Map.of("t", streams("0-0", "a-0", "b-0")))
                .withCurrentOwners(before.owners());
        assertEquals(1, Moves.lowerBound(joined));
        assertEquals(3, Moves.moved(joined, new RangeAssignor().assign(joined)));
        assertNotEquals(Moves.lowerBound(joined), Moves.moved(joined, new RangeAssignor().assign(joined)));
        assertEquals(1, Moves.moved(joined, new StickyAssignor().assign(joined)));
    }

    private static Assignor named(String name, java.util.function.Function<AssignmentInput, Assignment> assign) {
        return new Assignor() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Assignment assign(AssignmentInput input) {
                return assign.apply(input);
            }
        };
    }
}
