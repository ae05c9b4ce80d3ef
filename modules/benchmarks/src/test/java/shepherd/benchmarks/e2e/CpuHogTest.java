package shepherd.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The made-to-order tenant loads a core while it lives (its thread is seen running by the kernel) and ends when
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
            long cpuBefore = cpu(child);
            Thread.sleep(1_000);
            long ran = cpu(child) - cpuBefore;
            assertTrue(ran >= 200_000_000L, "the hog ran only " + ran + " ns in a second");
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
