package shepherd.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A row's tail columns: which repetitions a collector pause (of this JVM or of ZooKeeper's) or a JIT compilation fell
 * into, and the latencies left once they are set aside (how the harness tells the JVM's own work from the product's
 * in a p99).
 */
class RebalanceRowTest {

    @Test
    void theTailWithoutTheJvmsOwnWorkLeavesOutEveryRepetitionEitherFellInto() {
        RebalanceRow row = new RebalanceRow("join", 16, 64);
        add(row, 3.0, 0, 0, 0);
        add(row, 19.0, 1, 0, 0); // a pause
        add(row, 21.0, 0, 7, 0); // a compilation
        add(row, 25.0, 2, 4, 0); // both
        add(row, 18.0, 0, 0, 1); // a pause of ZooKeeper's JVM
        add(row, 4.0, 0, 0, 0);
        assertEquals(List.of(3.0, 21.0, 18.0, 4.0), row.latencyWithoutGcMs());
        assertEquals(List.of(3.0, 4.0), row.latencyWithoutJvmWorkMs());
        assertEquals("2 (11 + 0 ms)", row.jitCell());
        assertEquals("2 (30 ms)", row.gcCell());
        assertEquals("1 (10 ms)", row.zkGcCell(true));
        assertEquals("-", row.zkGcCell(false));
    }

    @Test
    void aCompilationInZooKeepersJvmCountsAsTheJvmsOwnWork() {
        RebalanceRow row = new RebalanceRow("join", 16, 64);
        add(row, 3.0, 0, 0, 0, 0);
        add(row, 17.0, 0, 0, 0, 12); // only ZooKeeper's JVM compiled
        add(row, 16.0, 0, 5, 0, 3); // both did: one repetition
        assertEquals("2 (5 + 15 ms)", row.jitCell());
        assertEquals(List.of(3.0), row.latencyWithoutJvmWorkMs());
    }

    @Test
    void aRowNothingFellIntoSaysZero() {
        RebalanceRow row = new RebalanceRow("leave", 16, 64);
        add(row, 3.0, 0, 0, 0);
        assertEquals("0", row.jitCell());
        assertEquals("0", row.gcCell());
        assertEquals("0", row.zkGcCell(true));
        assertEquals(List.of(3.0), row.latencyWithoutJvmWorkMs());
    }

    @Test
    void theCoresTableSetsTheSlowestRepetitionsAgainstTheTypicalOnes() {
        RebalanceRow row = new RebalanceRow("join", 16, 64);
        for (int i = 0; i < 18; i++) {
            add(row, 3.0, 0, 0, 0);
            row.coreUsage().add(usage(1, 2, 0));
        }
        add(row, 9.0, 0, 0, 0); // the p95 of twenty: the 19th
        row.coreUsage().add(usage(4, 6, 0));
        add(row, 21.0, 0, 0, 0);
        row.coreUsage().add(usage(12, 10, 10));
        List<List<String>> lines = row.coreLines();
        assertEquals(List.of("join", "16", "64", "≤ p50", "18", "3.0", "1.0 / 2.0"), lines.get(0).subList(0, 7));
        assertEquals(List.of("join", "16", "64", "≥ p95", "2", "15.0", "8.0 / 8.0"), lines.get(1).subList(0, 7));
        assertEquals("0.0 / 0.0", lines.get(1).get(7)); // no other kind did anything
        assertEquals("5.0", lines.get(1).get(lines.get(1).size() - 1)); // the host's steal
        assertEquals(6 + RunQueue.Kind.values().length + 1, lines.get(0).size());
    }

    @Test
    void noCoresTableWithoutTheKernelsFigures() {
        RebalanceRow row = new RebalanceRow("join", 16, 64);
        add(row, 3.0, 0, 0, 0);
        assertEquals(List.of(), row.coreLines()); // none sampled
        row.coreUsage().add(null); // /proc could not be read
        assertEquals(List.of(), row.coreLines());
    }

    /** The broker loop's wait and run, and the host's steal, in milliseconds; every other kind nothing. */
    private static RunQueue.Usage usage(long loopWaitMs, long loopRanMs, long stealMs) {
        long[] wait = new long[RunQueue.Kind.values().length];
        long[] cpu = new long[RunQueue.Kind.values().length];
        wait[RunQueue.Kind.BROKER_LOOP.ordinal()] = loopWaitMs * 1_000_000;
        cpu[RunQueue.Kind.BROKER_LOOP.ordinal()] = loopRanMs * 1_000_000;
        return new RunQueue.Usage(wait, cpu, stealMs * 1_000_000);
    }

    /**
     * One repetition: its latency, this JVM's collector pauses (10 ms each), the compilation milliseconds, and
     * ZooKeeper's JVM's pauses (10 ms each) in it.
     */
    private static void add(RebalanceRow row, double latencyMs, int pauses, long compiledMs, int zkPauses) {
        add(row, latencyMs, pauses, compiledMs, zkPauses, 0);
    }

    private static void add(RebalanceRow row, double latencyMs, int pauses, long compiledMs, int zkPauses,
                            long zkCompiledMs) {
        row.latencyMs().add(latencyMs);
        row.work().add(new JvmWork(new Gc.Pauses(pauses, 10L * pauses), compiledMs,
                new Gc.Pauses(zkPauses, 10L * zkPauses), zkCompiledMs));
    }
}
