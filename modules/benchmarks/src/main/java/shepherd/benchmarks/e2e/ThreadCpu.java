package shepherd.benchmarks.e2e;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a harness JVM's CPU goes during one measured action, by kind of thread: the CPU time of every live Java
 * thread (nanosecond clocks, unlike the process's own counter, which moves in 10 ms ticks), taken before and after
 * and grouped by the thread's name. A thread that ends in between loses what it used since the first snapshot; one
 * that starts in between counts whole. The JVM's own threads (JIT compilers, GC) are not Java threads: what the
 * process used beyond the named threads is reported as {@code JVM's own (JIT, GC)}, from the process's coarse counter.
 * The same snapshots give the bytes each kind of thread allocated ({@link #allocatedBetween}): what fills the young
 * generation, hence how often a pause can fall into a rebalance.
 */
final class ThreadCpu {
    /** Thread name prefixes, in the order the table shows them; anything else is {@code other}. */
    private static final List<String[]> KINDS = List.of(
            new String[] {"consumer: I/O and session", "shepherd-client-io-"},
            new String[] {"consumer: events", "shepherd-consumer-events-"},
            new String[] {"consumer: fetchers", "shepherd-fetcher-"},
            new String[] {"broker: I/O", "shepherd-server-io-"},
            new String[] {"broker: loop", "shepherd-broker-loop-"},
            new String[] {"broker: timers", "shepherd-broker-timers-"},
            new String[] {"broker: ZooKeeper client", "shepherd-zk-adapter-"},
            new String[] {"ZooKeeper server", "NIOWorkerThread-", "NIOServerCxnFactory", "SyncThread",
                "ProcessThread", "RequestThrottler", "CommitProcessor", "SessionTracker", "ConnnectionExpirer"},
            new String[] {"harness", "main"});

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.ThreadMXBean ALLOCATION = (com.sun.management.ThreadMXBean) THREADS;
    /** Kind by thread id, from the name as first seen (thread ids are never reused; a kind is told by its prefix). */
    private static final Map<Long, String> KIND_OF = new java.util.concurrent.ConcurrentHashMap<>();

    private ThreadCpu() {}

    /**
     * Thread id → CPU nanoseconds of every live thread whose kind is known, the process's CPU nanoseconds, and thread
     * id → bytes the thread allocated so far.
     */
    record Snapshot(Map<Long, Long> cpu, long processNanos, Map<Long, Long> allocated) {}

    static Snapshot snapshot() {
        Map<Long, Long> cpu = new HashMap<>();
        Map<Long, Long> allocated = new HashMap<>();
        for (long id : THREADS.getAllThreadIds()) {
            long nanos = THREADS.getThreadCpuTime(id);
            if (nanos >= 0 && KIND_OF.computeIfAbsent(id, ThreadCpu::kindOf) != null) {
                cpu.put(id, nanos);
                long bytes = ALLOCATION.getThreadAllocatedBytes(id);
                if (bytes >= 0) {
                    allocated.put(id, bytes);
                }
            }
        }
        long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        return new Snapshot(cpu, process, allocated);
    }

    /** A thread's kind, from its name asked once per thread (a thread-info request stops the JVM at a safepoint). */
    private static String kindOf(long id) {
        ThreadInfo info = THREADS.getThreadInfo(id);
        return info == null ? null : kind(info.getThreadName());
    }

    /** CPU nanoseconds per kind of thread between two snapshots, {@code total} and {@code JVM's own (JIT, GC)} last. */
    static Map<String, Long> between(Snapshot before, Snapshot after) {
        Map<String, Long> byKind = new LinkedHashMap<>();
        long named = perKind(before.cpu(), after.cpu(), byKind);
        long process = after.processNanos() - before.processNanos();
        byKind.put("JVM's own (JIT, GC)", Math.max(0, process - named));
        byKind.put("total", Math.max(process, named));
        return byKind;
    }

    /** Bytes allocated per kind of thread between two snapshots, {@code total} last (same threads as the CPU). */
    static Map<String, Long> allocatedBetween(Snapshot before, Snapshot after) {
        Map<String, Long> byKind = new LinkedHashMap<>();
        byKind.put("total", perKind(before.allocated(), after.allocated(), byKind));
        return byKind;
    }

    /** Puts every kind's growth of a per-thread counter into {@code byKind}, in the table's order; returns the sum. */
    private static long perKind(Map<Long, Long> before, Map<Long, Long> after, Map<String, Long> byKind) {
        KINDS.forEach(k -> byKind.put(k[0], 0L));
        byKind.put("other", 0L);
        long sum = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            long grown = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            byKind.merge(KIND_OF.get(e.getKey()), grown, Long::sum);
            sum += grown;
        }
        return sum;
    }

    private static String kind(String name) {
        for (String[] k : KINDS) {
            for (int i = 1; i < k.length; i++) {
                if (name.startsWith(k[i])) {
                    return k[0];
                }
            }
        }
        return "other";
    }

    /** Sums of {@link #between} (or of {@link #allocatedBetween}) over repetitions, for a mean per kind. */
    static final class Totals {
        private final Map<String, Long> sums = new LinkedHashMap<>(); // between()'s order: every kind, always
        private int samples;

        void add(Map<String, Long> one) {
            one.forEach((k, v) -> sums.merge(k, v, Long::sum));
            samples++;
        }

        /** Mean milliseconds per repetition, per kind, in the table's order (empty before the first sample). */
        Map<String, Double> meanMs() {
            return meanMillionths();
        }

        /** Of {@link #allocatedBetween}'s bytes: mean MB per repetition, per kind. */
        Map<String, Double> meanMb() {
            return meanMillionths();
        }

        private Map<String, Double> meanMillionths() {
            Map<String, Double> mean = new LinkedHashMap<>();
            sums.forEach((k, v) -> mean.put(k, v / 1e6 / samples));
            return mean;
        }
    }
}
