package shepherd.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * The run-queue reader: it parses the kernel's lines, tells the threads apart by their cut names, and counts as
 * waiting the threads that outnumber the cores and not the ones that sleep (its negative control).
 */
class RunQueueTest {
    private static final long WINDOW_MS = 400;

    @Test
    void readsTheWaitAndTheSteal() {
        assertArrayEquals(new long[] {534_828_653L, 29_125_327L}, schedstat("534828653 29125327 393\n"));
        assertArrayEquals(new long[] {0, 7}, schedstat("0 7"));
        assertEquals(17_660_000_000L, RunQueue.stealNs("cpu  1203872 0 147716 1861670 3267 0 8239 1766 0 0"));
        for (String bad : List.of("12\n", "12 x 3\n", "", "-1 2 3\n", "12345678901234567890 1 1\n")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> schedstat(bad));
            assertTrue(e.getMessage().contains("\"" + bad.trim() + "\""), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> RunQueue.stealNs("intr 1 2 3 4 5 6 7 8 9"));
    }

    private static long[] schedstat(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        return RunQueue.parseSchedstat(bytes, bytes.length);
    }

    @Test
    void tellsTheThreadsApartByTheirKernelNames() {
        assertEquals(RunQueue.Kind.BROKER_LOOP, RunQueue.kind("shepherd-broker", false)); // loop and timers, cut
        assertEquals(RunQueue.Kind.BROKER_ZK, RunQueue.kind("shepherd-zk-ada", false));
        assertEquals(RunQueue.Kind.BROKER_IO, RunQueue.kind("shepherd-server", false));
        assertEquals(RunQueue.Kind.FETCHERS, RunQueue.kind("shepherd-fetche", false));
        assertEquals(RunQueue.Kind.CONSUMER_IO, RunQueue.kind("shepherd-client", false));
        assertEquals(RunQueue.Kind.SERVER, RunQueue.kind("SyncThread:0", false));
        assertEquals(RunQueue.Kind.JIT, RunQueue.kind("C2 CompilerThre", false));
        assertEquals(RunQueue.Kind.GC, RunQueue.kind("G1 Conc#0", false));
        assertEquals(RunQueue.Kind.OTHER, RunQueue.kind("main", false));
        assertEquals(RunQueue.Kind.SERVER, RunQueue.kind("main", true)); // ZooKeeper's JVM: its threads serve
        assertEquals(RunQueue.Kind.SERVER_JVM, RunQueue.kind("GC Thread#0", true));
        assertEquals(RunQueue.Kind.SERVER_JVM, RunQueue.kind("C1 CompilerThre", true));
    }

    @Test
    void threadsThatOutnumberTheCoresWaitForOne() throws InterruptedException {
        RunQueue.Usage usage = during(true);
        long wantedNs = WINDOW_MS * 1_000_000L / 4; // each core has two more spinners than it can run at once
        long waited = usage.waitNs(RunQueue.Kind.FETCHERS);
        assertTrue(waited >= wantedNs, "spinning threads waited only " + waited + " ns");
        long ran = usage.cpuNs(RunQueue.Kind.FETCHERS);
        assertTrue(ran >= wantedNs, "spinning threads ran only " + ran + " ns");
        // Three per core: each stood in line about twice as long as it ran (were the fields swapped, the other way)
        assertTrue(waited > ran, "spinning threads waited " + waited + " ns but ran " + ran + " ns");
    }

    @Test
    void threadsThatSleepDoNotCountAsWaiting() throws InterruptedException {
        RunQueue.Usage usage = during(false);
        long waited = usage.waitNs(RunQueue.Kind.FETCHERS);
        assertTrue(waited < WINDOW_MS * 1_000_000L / 4, "sleeping threads were counted as waiting " + waited + " ns");
    }

    /**
     * The waits while three threads per core, named as fetchers, spin (or sleep) for the window; the second snapshot
     * is taken while they still live (a thread that ended is gone from /proc).
     */
    private static RunQueue.Usage during(boolean spin) throws InterruptedException {
        RunQueue queue = new RunQueue(-1);
        int n = 3 * Runtime.getRuntime().availableProcessors();
        CountDownLatch started = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(n);
        CountDownLatch end = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                started.countDown();
                try {
                    go.await();
                    if (spin) {
                        long until = System.nanoTime() + WINDOW_MS * 1_000_000L;
                        while (System.nanoTime() < until) {
                            Thread.onSpinWait();
                        }
                    } else {
                        Thread.sleep(WINDOW_MS);
                    }
                    done.countDown();
                    end.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "shepherd-fetcher-test-" + i);
            threads.add(t);
            t.start();
        }
        started.await();
        RunQueue.Snapshot before = queue.snapshot();
        go.countDown();
        done.await();
        RunQueue.Usage usage = RunQueue.between(before, queue.snapshot());
        end.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertNotNull(usage, "/proc has no schedstat here");
        return usage;
    }
}
