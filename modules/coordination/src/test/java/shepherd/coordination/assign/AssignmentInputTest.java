package shepherd.coordination.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static shepherd.coordination.assign.Examples.onBroker0;
import static shepherd.coordination.assign.Examples.partitions;
import static shepherd.coordination.assign.Examples.streams;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AssignmentInputTest {

    @Test
    void normalisesOnceSortedAndImmutable() {
        AssignmentInput input = AssignmentInput.of(
                Map.of("t", partitions("1-10", "0-3", "1-9")), Map.of("t", streams("c-10", "b-0", "c-2")));
        assertEquals(partitions("0-3", "1-9", "1-10"), input.partitions("t"));
        assertEquals(streams("b-0", "c-2", "c-10"), input.streams("t"));
        assertThrows(UnsupportedOperationException.class, () -> input.partitions("t").set(0, new PartitionId(0, 0)));
        assertThrows(UnsupportedOperationException.class, () -> input.streamsByTopic().put("u", List.of()));
        assertEquals(input, AssignmentInput.of(
                Map.of("t", partitions("1-9", "1-10", "0-3")), Map.of("t", streams("c-2", "b-0", "c-10"))));
    }

    @Test
    void fromSubscriptionsNumbersEachConsumersStreamsFromZero() {
        AssignmentInput input = AssignmentInput.fromSubscriptions(
                Map.of("t0", onBroker0(1)),
                Map.of("c", Map.of("t0", 2, "t1", 3), "d", Map.of("t0", 0)),
                Map.of());
        assertEquals(streams("c-0", "c-1"), input.streams("t0"));
        assertEquals(streams("c-0", "c-1", "c-2"), input.streams("t1"));
        assertEquals(List.of("t0"), input.assignableTopics()); // t1 has no partitions
        assertEquals(new ArrayList<>(streams("c-0", "c-1", "c-2")), new ArrayList<>(input.allStreams()));
    }

    @Test
    void rejectsDuplicatesNullsAndNegativeCounts() {
        IllegalArgumentException duplicate = assertThrows(IllegalArgumentException.class,
                () -> AssignmentInput.of(Map.of("t", partitions("0-1", "0-1")), Map.of()));
        assertTrue(duplicate.getMessage().contains("0-1 twice"), duplicate::getMessage);
        assertThrows(IllegalArgumentException.class,
                () -> AssignmentInput.fromSubscriptions(Map.of(), Map.of("c", Map.of("t", -1)), Map.of()));
        Map<String, List<PartitionId>> withNull = new HashMap<>();
        withNull.put("t", null);
        assertThrows(NullPointerException.class, () -> AssignmentInput.of(withNull, Map.of()));
        assertThrows(NullPointerException.class, () -> new AssignmentInput(Map.of(), Map.of(), null));
    }

    @Test
    void assignmentViewsAgree() {
        AssignmentInput input = AssignmentInput.fromSubscriptions(
                Map.of("t0", onBroker0(3), "t1", onBroker0(2)), Map.of("c", Map.of("t0", 2, "t1", 1), "d", Map.of("t1", 1)),
                Map.of());
        Assignment assignment = new RangeAssignor().assign(input);
        // t0: c-0 {0-0, 0-1}, c-1 {0-2}; t1: c-0 {0-0}, d-0 {0-1}
        assertEquals(List.of(TopicPartition.of("t0", "0-0"), TopicPartition.of("t0", "0-1"), TopicPartition.of("t1", "0-0")),
                assignment.partitionsOf(StreamId.parse("c-0")));
        assertEquals(assignment.partitionsOf(StreamId.parse("c-0")), assignment.byStream().get(StreamId.parse("c-0")));
        assertEquals(4, assignment.ofConsumer("c").size());
        assertEquals(List.of("c", "d"), new ArrayList<>(assignment.byConsumer().keySet()));
        assertEquals(assignment.ofConsumer("d"), assignment.byConsumer().get("d"));
        assertEquals(StreamId.parse("d-0"), assignment.ownerOf(TopicPartition.of("t1", "0-1")).orElseThrow());
        assertEquals(assignment, Assignment.of(new HashMap<>(assignment.owners())));
        assertEquals(new ArrayList<>(assignment.owners().keySet()),
                new ArrayList<>(Assignment.of(new HashMap<>(assignment.owners())).owners().keySet()));
    }

    @Test
    void aBuilderFedOutOfOrderStillIteratesSorted() {
        Assignment assignment = Assignment.builder(2)
                .assign(TopicPartition.of("t", "1-10"), StreamId.parse("a-0"))
                .assign(TopicPartition.of("t", "1-9"), StreamId.parse("a-0"))
                .build();
        assertEquals(List.of(TopicPartition.of("t", "1-9"), TopicPartition.of("t", "1-10")),
                new ArrayList<>(assignment.owners().keySet()));
    }
}
