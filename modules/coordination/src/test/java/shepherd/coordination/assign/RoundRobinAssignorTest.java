package shepherd.coordination.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static shepherd.coordination.assign.Examples.byStream;
import static shepherd.coordination.assign.Examples.expect;
import static shepherd.coordination.assign.Examples.onBroker0;
import static shepherd.coordination.assign.Examples.streams;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoundRobinAssignorTest {
    private final Assignor roundRobin = new RoundRobinAssignor();

    /** Kafka's RoundRobinAssignor documentation: C0 [t0p0, t0p2, t1p1], C1 [t0p1, t1p0, t1p2]. */
    @Test
    void reproducesKafkasExampleWithIdenticalSubscriptions() {
        AssignmentInput input = AssignmentInput.of(
                Map.of("t0", onBroker0(3), "t1", onBroker0(3)),
                Map.of("t0", streams("C0-0", "C1-0"), "t1", streams("C0-0", "C1-0")));
        assertEquals(expect(
                "C0-0", List.of("t0/0-0", "t0/0-2", "t1/0-1"),
                "C1-0", List.of("t0/0-1", "t1/0-0", "t1/0-2")), byStream(roundRobin.assign(input)));
    }

    /**
     * Kafka's example with differing subscriptions (C0 on t0; C1 on t0, t1; C2 on t0, t1, t2; 1, 2 and 3
     * partitions): C0 [t0p0], C1 [t1p0], C2 [t1p1, t2p0, t2p1, t2p2]. Unbalanced, and documented as such.
     */
    @Test
    void reproducesKafkasExampleWithDifferingSubscriptions() {
        AssignmentInput input = AssignmentInput.fromSubscriptions(
                Map.of("t0", onBroker0(1), "t1", onBroker0(2), "t2", onBroker0(3)),
                Map.of("C0", Map.of("t0", 1),
                        "C1", Map.of("t0", 1, "t1", 1),
                        "C2", Map.of("t0", 1, "t1", 1, "t2", 1)),
                Map.of());
        assertEquals(expect(
                "C0-0", List.of("t0/0-0"),
                "C1-0", List.of("t1/0-0"),
                "C2-0", List.of("t1/0-1", "t2/0-0", "t2/0-1", "t2/0-2")), byStream(roundRobin.assign(input)));
    }

    /** The ring position carries across topics, and a topic's first owner may sit before the position (wrap). */
    @Test
    void wrapsAroundTheRingBetweenTopics() {
        // Ring: a-0, b-0, c-0. t0 (2 partitions) → a, b; t1 is only c's and a's: next position is c, then wrap to a.
        AssignmentInput input = AssignmentInput.of(
                Map.of("t0", onBroker0(2), "t1", onBroker0(3)),
                Map.of("t0", streams("a-0", "b-0", "c-0"), "t1", streams("a-0", "c-0")));
        assertEquals(expect(
                "a-0", List.of("t0/0-0", "t1/0-1"),
                "b-0", List.of("t0/0-1"),
                "c-0", List.of("t1/0-0", "t1/0-2")), byStream(roundRobin.assign(input)));
    }
}
