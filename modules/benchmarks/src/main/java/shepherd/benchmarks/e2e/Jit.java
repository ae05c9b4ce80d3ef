package shepherd.benchmarks.e2e;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * The JIT compilers of this JVM, seen from the harness: compilations run on threads of their own and take a core
 * from whatever is measured meanwhile, so a harness waits for them to go quiet before it measures, and reports how
 * much compiling still happened while it did.
 */
final class Jit {
    private static final CompilationMXBean COMPILER = ManagementFactory.getCompilationMXBean();
    private static final long QUIET_MS = 1_000;
    private static final long WAIT_MAX_MS = 30_000;
    private static final long POLL_MS = 100;

    private Jit() {}

    /** Milliseconds the compilers have spent compiling since the JVM started. */
    static long totalMs() {
        return COMPILER.getTotalCompilationTime();
    }

    /**
     * Waits until no compilation time has accrued for a second (at most 30 s: a JVM that never stops compiling is
     * measured anyway, and the compile time reported beside its figures says so).
     *
     * @return the compilation milliseconds that accrued while waiting
     */
    static long awaitQuiet() throws InterruptedException {
        long start = totalMs();
        long last = start;
        long quietSince = System.nanoTime();
        long deadline = System.nanoTime() + WAIT_MAX_MS * 1_000_000;
        while (System.nanoTime() < deadline) {
            Thread.sleep(POLL_MS);
            long now = totalMs();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince >= QUIET_MS * 1_000_000) {
                break;
            }
        }
        return last - start;
    }
}
