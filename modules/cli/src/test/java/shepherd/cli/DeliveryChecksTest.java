package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import shepherd.cli.DeliveryChecks.Delivery;

/** Negative controls of the consumer integration tests' checks: each catches the bug it exists for. */
class DeliveryChecksTest {
    private static final List<Delivery> CLEAN = List.of(
            new Delivery("c1", "1-0", 0, 1), new Delivery("c1", "1-0", 1, 1),
            new Delivery("c2", "1-0", 2, 2), new Delivery("c2", "2-0", 0, 2));

    @Test
    void aCleanLogPassesEveryCheck() {
        assertEquals(List.of(), DeliveryChecks.duplicates(CLEAN));
        assertEquals(Map.of(), DeliveryChecks.sharedGenerations(CLEAN));
        assertEquals(Map.of(), DeliveryChecks.missing(CLEAN, Map.of("1-0", 3L, "2-0", 1L)));
    }

    @Test
    void twoOwnersInOneGenerationAreCaught() {
        List<Delivery> log = List.of(new Delivery("c1", "1-0", 0, 3), new Delivery("c2", "1-0", 1, 3));
        assertEquals(Map.of("1-0@g3", Set.of("c1", "c2")), DeliveryChecks.sharedGenerations(log));
    }

    @Test
    void aRecordDeliveredTwiceIsCounted() {
        Delivery again = new Delivery("c2", "1-0", 1, 2);
        List<Delivery> log = List.of(CLEAN.get(0), CLEAN.get(1), again);
        assertEquals(List.of(again), DeliveryChecks.duplicates(log));
    }

    @Test
    void aLostRecordIsReported() {
        assertEquals(Map.of("1-0", "3/4", "3-0", "0/1"),
                DeliveryChecks.missing(CLEAN, Map.of("1-0", 4L, "2-0", 1L, "3-0", 1L)));
    }
}
