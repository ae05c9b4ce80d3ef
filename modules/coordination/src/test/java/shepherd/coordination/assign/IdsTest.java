package shepherd.coordination.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdsTest {

    @Test
    void partitionIdOrderingIsNumeric() {
        List<PartitionId> ids = Examples.partitions("1-10", "10-0", "1-9", "2-0", "1-0", "9-100");
        Collections.sort(ids);
        assertEquals(Examples.partitions("1-0", "1-9", "1-10", "2-0", "9-100", "10-0"), ids);
    }

    @Property
    void partitionIdOrderIsTheOrderOfBrokerThenN(@ForAll @IntRange(max = 10_000) int b1, @ForAll @IntRange(max = 10_000) int n1,
                                                 @ForAll @IntRange(max = 10_000) int b2, @ForAll @IntRange(max = 10_000) int n2) {
        int expected = b1 != b2 ? Integer.compare(b1, b2) : Integer.compare(n1, n2);
        assertEquals(Integer.signum(expected),
                Integer.signum(PartitionId.parse(b1 + "-" + n1).compareTo(PartitionId.parse(b2 + "-" + n2))));
    }

    @Property
    void idsRoundTripThroughTheirStrings(@ForAll @IntRange(max = Integer.MAX_VALUE) int broker,
                                         @ForAll @IntRange(max = Integer.MAX_VALUE) int n,
                                         @ForAll @StringLength(min = 1, max = 12) String consumerId) {
        PartitionId partition = new PartitionId(broker, n);
        assertEquals(partition, PartitionId.parse(partition.toString()));
        StreamId stream = new StreamId(consumerId, n);
        assertEquals(stream, StreamId.parse(stream.toString()));
    }

    @Test
    void streamIdOrderingIsConsumerAsTextThenNAsNumber() {
        List<StreamId> ids = new ArrayList<>(Examples.streams("c-10", "b-1-0", "c-2", "c-1-3", "B-7"));
        Collections.sort(ids);
        // "B" < "b-1" < "c" < "c-1" as strings; within consumer "c", 2 before 10.
        assertEquals(Examples.streams("B-7", "b-1-0", "c-2", "c-10", "c-1-3"), ids);
    }

    @Test
    void streamIdSplitsAtTheLastDash() {
        assertEquals(new StreamId("group_host-1700000000-ab12", 3), StreamId.parse("group_host-1700000000-ab12-3"));
        assertEquals(new StreamId("c-", 1), StreamId.parse("c--1"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-", "1", "1-", "-1", "a-1", "1-a", "1-2-3", "01-2", "1-02", "+1-2", "1--2", " 1-2",
        "1-2 ", "2147483648-0", "0-99999999999", "1_2", "١-٢"})
    void garbagePartitionIdsAreRejectedNamingTheValue(String garbage) {
        InvalidIdException e = assertThrows(InvalidIdException.class, () -> PartitionId.parse(garbage));
        assertEquals(garbage, e.value());
        assertEquals("partition id", e.kind());
        assertTrue(e.getMessage().contains("\"" + garbage + "\""), e::getMessage);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-", "c", "c-", "-0", "c-x", "c-01", "c-1a", "c-2147483648", "c-0 "})
    void garbageStreamIdsAreRejectedNamingTheValue(String garbage) {
        InvalidIdException e = assertThrows(InvalidIdException.class, () -> StreamId.parse(garbage));
        assertEquals(garbage, e.value());
        assertEquals("stream id", e.kind());
        assertTrue(e.getMessage().contains("\"" + garbage + "\""), e::getMessage);
    }

    @Test
    void constructorsRejectImpossibleValues() {
        assertThrows(IllegalArgumentException.class, () -> new PartitionId(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> new PartitionId(0, -1));
        assertThrows(IllegalArgumentException.class, () -> new StreamId("", 0));
        assertThrows(IllegalArgumentException.class, () -> new StreamId("c", -1));
        assertThrows(NullPointerException.class, () -> new StreamId(null, 0));
        assertThrows(NullPointerException.class, () -> PartitionId.parse(null));
    }

    @Test
    void topicPartitionsOrderByTopicThenPartition() {
        List<TopicPartition> tps = new ArrayList<>(List.of(
                TopicPartition.of("b", "0-0"), TopicPartition.of("a", "1-10"), TopicPartition.of("a", "1-9")));
        Collections.sort(tps);
        assertEquals(List.of(TopicPartition.of("a", "1-9"), TopicPartition.of("a", "1-10"), TopicPartition.of("b", "0-0")), tps);
        assertEquals("a/1-9", TopicPartition.of("a", "1-9").toString());
    }
}
