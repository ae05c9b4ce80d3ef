package shepherd.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The harness's "GC pauses in" column counts the collections that stop every thread, and only those. */
class GcTest {

    @Test
    void stopTheWorldCollectionsArePauses() {
        for (String name : new String[] {"G1 Young Generation", "G1 Old Generation", "PS Scavenge", "PS MarkSweep",
                "ZGC Pauses", "Copy", "MarkSweepCompact"}) {
            assertTrue(Gc.isPause(name), name);
        }
    }

    @Test
    void concurrentCyclesAreNot() {
        // ZGC's cycle bean times whole concurrent cycles: counted as pauses it once put a 504 ms "pause" in a row.
        for (String name : new String[] {"ZGC Cycles", "G1 Concurrent GC", "Shenandoah Cycles"}) {
            assertFalse(Gc.isPause(name), name);
        }
    }
}
