package shepherd.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The made-to-order tenant loads a core while it lives (the kernel counts its CPU time growing) and ends when
 * closed; none are started for 0.
 */
class CpuHogTest {

    @Test
    void aHogRunsOnACoreUntilClosed() throws InterruptedException {
        try (CpuHog none = CpuHog.start(0)) {
            assertEquals(0, none.count());
        }
        CpuHog hog = CpuHog.start(1);
        ProcessHandle child;
        try {
            assertEquals(1, hog.count());
            child = ProcessHandle.current().children().filter(ProcessHandle::isAlive).findFirst().orElseThrow();
            // That it burns CPU at all, not how fast: on a loaded machine a second of wall time may give it little.
            long cpuBefore = cpu(child);
            long deadline = System.nanoTime() + 30_000_000_000L;
            long ran = 0;
            while (ran < 200_000_000L && System.nanoTime() < deadline) {
                Thread.sleep(50);
                ran = cpu(child) - cpuBefore;
            }
            assertTrue(ran >= 200_000_000L, "the hog ran only " + ran + " ns of CPU in 30 s");
        } finally {
            hog.close();
        }
        assertTrue(child.onExit().thenApply(p -> true).completeOnTimeout(false, 10, java.util.concurrent.TimeUnit.SECONDS)
                .join(), "the hog did not end when closed");
    }

    /** The child's CPU nanoseconds so far, from the JDK's view of the process. */
    private static long cpu(ProcessHandle p) {
        var d = p.info().totalCpuDuration();
        assertNotNull(d.orElse(null), "no CPU time for " + p.pid());
        return d.get().toNanos();
    }
}
