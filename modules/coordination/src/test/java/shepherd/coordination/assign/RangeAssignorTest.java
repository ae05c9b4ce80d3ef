package shepherd.coordination.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static shepherd.coordination.assign.Examples.byStream;
import static shepherd.coordination.assign.Examples.expect;
import static shepherd.coordination.assign.Examples.onBroker0;
import static shepherd.coordination.assign.Examples.partitions;
import static shepherd.coordination.assign.Examples.streams;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RangeAssignorTest {
    private final Assignor range = new RangeAssignor();

    /**
     * kafka.consumer.RangeAssignor's own documentation: "two consumers C1 and C2 with two streams each, and there are
     * five available partitions (p0, p1, p2, p3, p4) … p0 -> C1-0, p1 -> C1-0, p2 -> C1-1, p3 -> C2-0, p4 -> C2-1".
     */
    @Test
    void reproducesKafkasDocumentedExample() {
        AssignmentInput input = AssignmentInput.fromSubscriptions(
                Map.of("t", onBroker0(5)), Map.of("C1", Map.of("t", 2), "C2", Map.of("t", 2)), Map.of());
        assertEquals(expect(
                "C1-0", List.of("t/0-0", "t/0-1"),
                "C1-1", List.of("t/0-2"),
                "C2-0", List.of("t/0-3"),
                "C2-1", List.of("t/0-4")), byStream(range.assign(input)));
    }

    /** The worked example of docs/assignors.md: partitions given out of order and across two brokers. */
    @Test
    void reproducesTheDocumentedWorkedExample() {
        AssignmentInput input = AssignmentInput.fromSubscriptions(
                Map.of("t", partitions("2-1", "1-10", "1-0", "2-0", "1-9", "1-2", "1-1")),
                Map.of("a", Map.of("t", 2), "b", Map.of("t", 1)), Map.of());
        assertEquals(expect(
                "a-0", List.of("t/1-0", "t/1-1", "t/1-2"),
                "a-1", List.of("t/1-9", "t/1-10"),
                "b-0", List.of("t/2-0", "t/2-1")), byStream(range.assign(input)));
    }

    /** Ten partitions over three streams, worked by hand: per = 3, extra = 1, so 4, 3, 3 (starts 0, 4, 7). */
    @Test
    void firstPModSStreamsGetOneExtra() {
        AssignmentInput input = AssignmentInput.of(Map.of("t", onBroker0(10)), Map.of("t", streams("c-0", "c-1", "c-2")));
        assertEquals(expect(
                "c-0", List.of("t/0-0", "t/0-1", "t/0-2", "t/0-3"),
                "c-1", List.of("t/0-4", "t/0-5", "t/0-6"),
                "c-2", List.of("t/0-7", "t/0-8", "t/0-9")), byStream(range.assign(input)));
    }

    /**
     * Kafka's RangeAssignor (new consumer) example: C0 and C1 both on t0 and t1 of 3 partitions each give
     * C0 [t0p0, t0p1, t1p0, t1p1] and C1 [t0p2, t1p2]: topics are ranged independently, so C0 takes both extras.
     */
    @Test
    void topicsAreAssignedIndependently() {
        AssignmentInput input = AssignmentInput.of(
                Map.of("t0", onBroker0(3), "t1", onBroker0(3)),
                Map.of("t0", streams("C0-0", "C1-0"), "t1", streams("C0-0", "C1-0")));
        assertEquals(expect(
                "C0-0", List.of("t0/0-0", "t0/0-1", "t1/0-0", "t1/0-1"),
                "C1-0", List.of("t0/0-2", "t1/0-2")), byStream(range.assign(input)));
    }

    /** Partitions are sorted as numbers by (broker, n) and streams by (consumer, n): "1-10" after "1-9", "c-10" after "c-2". */
    @Test
    void ordersIdsNumerically() {
        AssignmentInput input = AssignmentInput.of(
                Map.of("t", partitions("2-0", "1-10", "1-9", "10-0")),
                Map.of("t", streams("c-10", "c-2")));
        assertEquals(expect(
                "c-2", List.of("t/1-9", "t/1-10"),
                "c-10", List.of("t/2-0", "t/10-0")), byStream(range.assign(input)));
    }

    @Test
    void streamsBeyondThePartitionCountGetNothing() {
        AssignmentInput input = AssignmentInput.of(Map.of("t", onBroker0(2)), Map.of("t", streams("a-0", "b-0", "c-0")));
        assertEquals(expect("a-0", List.of("t/0-0"), "b-0", List.of("t/0-1")), byStream(range.assign(input)));
    }

    @Test
    void topicsWithoutSubscribersOrPartitionsAreSkipped() {
        AssignmentInput input = AssignmentInput.of(
                Map.of("nobody", onBroker0(3), "empty", List.of()),
                Map.of("missing", streams("a-0"), "empty", streams("a-0")));
        assertEquals(Assignment.empty(), range.assign(input));
    }
}
