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
        RebalanceBench.Row row = new RebalanceBench.Row("join", 16, 64);
        add(row, 3.0, 0, 0, 0);
        add(row, 19.0, 1, 0, 0); // a pause
        add(row, 21.0, 0, 7, 0); // a compilation
        add(row, 25.0, 2, 4, 0); // both
        add(row, 18.0, 0, 0, 1); // a pause of ZooKeeper's JVM
        add(row, 4.0, 0, 0, 0);
        assertEquals(List.of(3.0, 21.0, 18.0, 4.0), row.latencyWithoutGcMs());
        assertEquals(List.of(3.0, 4.0), row.latencyWithoutJvmWorkMs());
        assertEquals("2 (11 ms)", row.jitCell());
        assertEquals("2 (30 ms)", row.gcCell());
        assertEquals("1 (10 ms)", row.zkGcCell(true));
        assertEquals("-", row.zkGcCell(false));
    }

    @Test
    void aRowNothingFellIntoSaysZero() {
        RebalanceBench.Row row = new RebalanceBench.Row("leave", 16, 64);
        add(row, 3.0, 0, 0, 0);
        assertEquals("0", row.jitCell());
        assertEquals("0", row.gcCell());
        assertEquals("0", row.zkGcCell(true));
        assertEquals(List.of(3.0), row.latencyWithoutJvmWorkMs());
    }

    /**
     * One repetition: its latency, this JVM's collector pauses (10 ms each), the compilation milliseconds, and
     * ZooKeeper's JVM's pauses (10 ms each) in it.
     */
    private static void add(RebalanceBench.Row row, double latencyMs, int pauses, long compiledMs, int zkPauses) {
        row.latencyMs().add(latencyMs);
        row.gcPauses().add(new Gc.Pauses(pauses, 10L * pauses));
        row.jitMs().add(compiledMs);
        row.zkGcPauses().add(new Gc.Pauses(zkPauses, 10L * zkPauses));
    }
}
