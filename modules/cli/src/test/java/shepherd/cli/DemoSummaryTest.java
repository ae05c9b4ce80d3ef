package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import shepherd.cli.demo.DeliveryLog;
import shepherd.cli.demo.Failover;
import shepherd.cli.demo.Rebalance;
import shepherd.cli.demo.Summary;

/**
 * The demo's summary maths and invariant checks, without a cluster. Each checker has its negative control: a log
 * with a lost record, or with a (partition, generation) delivered by two consumers, or a run ending with no single
 * coordinator, must fail with exit code 1 and name the failed invariant.
 */
class DemoSummaryTest {
    private static final Map<String, Long> PRODUCED = Map.of("events/1-0", 3L, "events/2-0", 2L);
    private static final List<String> ONE_COORDINATOR = List.of("broker 2 (epoch 3, ACTIVE)");

    /** Both partitions fully delivered to group g: 1-0 by c1 in g1, then 1-0@2 again by c2 in g2, 2-0 by c2. */
    private static DeliveryLog completeLog() {
        DeliveryLog log = new DeliveryLog();
        log.record("g", "c1", "events/1-0", 0, 1, true);
        log.record("g", "c1", "events/1-0", 1, 1, true);
        log.record("g", "c1", "events/1-0", 2, 1, true);
        log.record("g", "c2", "events/1-0", 2, 2, true); // re-delivered after a handover: a duplicate, not a conflict
        log.record("g", "c2", "events/2-0", 0, 2, true);
        log.record("g", "c2", "events/2-0", 1, 2, true);
        return log;
    }

    private static Summary summary(DeliveryLog log, List<String> coordinators) {
        List<Rebalance> rebalances = List.of(
                new Rebalance("g", "initial join", -1, -1, 1, 1, 100, 400),
                new Rebalance("g", "c3 left", 1, 1, 1, 2, 2_000, 100),
                new Rebalance("g", "coordinator killed", 1, 2, 2, 3, 5_000, 1_300),
                new Rebalance("h", "c4 joined", 1, 1, 1, 2, 7_000, 200));
        List<Failover> failovers = List.of(new Failover("coordinator broker 1 killed", 1, 1, 2, 2, 30, 1_100, 1_180));
        return Summary.of(new Summary.Input(7, PRODUCED, log, List.of("g"), rebalances, failovers, coordinators));
    }

    @Test
    void aCompleteLogPassesEveryInvariantAndCountsDuplicates() {
        Summary s = summary(completeLog(), ONE_COORDINATOR);
        assertEquals(0, s.exitCode(), String.join("\n", s.lines()));
        String text = String.join("\n", s.lines());
        assertTrue(text.contains("group g: 5 of 5 records delivered (6 deliveries, 1 duplicates)"), text);
        assertTrue(text.contains("by consumer: c1 3, c2 3"), text);
        assertTrue(text.contains("duplicates by the event before them: initial join 1"), text);
        assertTrue(text.contains("rebalances: 4 (g 3, h 1); duration min 100 ms, median 300 ms, max 1,300 ms"), text);
        assertTrue(text.contains("lease wait 1,100 ms, active after 1,180 ms"), text);
        assertTrue(text.contains("result: every invariant holds (exit code 0)"), text);
        assertTrue(text.contains("seed 7"), text);
    }

    @Test
    void aLostRecordFailsTheNoRecordLostInvariant() {
        DeliveryLog log = new DeliveryLog();
        log.record("g", "c1", "events/1-0", 0, 1, true);
        log.record("g", "c1", "events/1-0", 2, 1, true); // offset 1 never delivered
        log.record("g", "c2", "events/2-0", 0, 1, true);
        log.record("g", "c2", "events/2-0", 1, 1, true);
        Summary s = summary(log, ONE_COORDINATOR);
        assertEquals(1, s.exitCode());
        assertFailed(s, "no record lost");
        assertTrue(String.join("\n", s.lines()).contains("g misses 1 {events/1-0=1}"), String.join("\n", s.lines()));
    }

    @Test
    void twoConsumersDeliveringOnePartitionInOneGenerationFailTheOwnershipInvariant() {
        DeliveryLog log = completeLog();
        log.record("g", "c3", "events/2-0", 1, 2, true); // c2 owns 2-0 in generation 2, yet c3 delivers from it
        Summary s = summary(log, ONE_COORDINATOR);
        assertEquals(1, s.exitCode());
        assertFailed(s, "no (partition, generation) delivered by two consumers");
        assertTrue(String.join("\n", s.lines()).contains("events/2-0 g2"), String.join("\n", s.lines()));
    }

    @Test
    void noSingleCoordinatorAtTheEndFails() {
        assertFailed(summary(completeLog(), List.of()), "exactly one coordinator at the end");
        assertFailed(summary(completeLog(), List.of("broker 1 (epoch 2, ACTIVE)", "broker 2 (epoch 3, ACTIVE)")),
                "exactly one coordinator at the end");
    }

    @Test
    void aCorruptRecordFailsTheIntactInvariant() {
        DeliveryLog log = completeLog();
        log.record("g", "c2", "events/2-0", 1, 2, false);
        assertFailed(summary(log, ONE_COORDINATOR), "records intact");
    }

    private static void assertFailed(Summary s, String invariant) {
        String text = String.join("\n", s.lines());
        assertEquals(1, s.exitCode(), text);
        assertTrue(s.checks().stream().anyMatch(c -> !c.holds() && c.name().startsWith(invariant)), text);
        assertFalse(s.checks().stream().filter(c -> !c.name().startsWith(invariant)).anyMatch(c -> !c.holds()),
                "only " + invariant + " fails:\n" + text);
        assertTrue(text.contains("[FAILED] " + invariant), text);
        assertTrue(text.contains("result: FAILED " + invariant), text);
    }
}
