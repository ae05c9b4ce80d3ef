package shepherd.benchmarks.e2e;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The garbage collector's pauses in this JVM, seen from the harness: a young collection stops every thread, and in
 * a JVM that holds 64 consumers its root scan walks over a thousand thread stacks, so a repetition it falls into is
 * longer by the pause. The harness counts the pauses in each repetition and reports them beside the latencies.
 */
final class Gc {
    /**
     * The collectors whose time is pause time: G1's and Parallel's young and full collections and ZGC's pauses; not
     * the concurrent cycles (G1's "Concurrent GC" bean where the JVM has one, ZGC's "ZGC Cycles"), which stop nobody.
     */
    private static final List<GarbageCollectorMXBean> PAUSING = ManagementFactory.getGarbageCollectorMXBeans().stream()
            .filter(b -> isPause(b.getName())).toList();

    private Gc() {}

    /** Pauses so far: how many, and their milliseconds. */
    record Pauses(long count, long ms) {
        Pauses minus(Pauses before) {
            return new Pauses(count - before.count, ms - before.ms);
        }
    }

    static boolean isPause(String collectorName) {
        return !collectorName.contains("Concurrent") && !collectorName.endsWith("Cycles");
    }

    /**
     * This JVM's garbage collector, as its management beans name it ("G1 Young Generation, G1 Old Generation", "ZGC
     * Cycles, ZGC Pauses"): result files name it, since a pause column means nothing without it.
     */
    static String collector() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
                .filter(n -> !n.contains("Concurrent")).collect(Collectors.joining(", "));
    }

    static Pauses sinceStart() {
        long count = 0;
        long ms = 0;
        for (GarbageCollectorMXBean b : PAUSING) {
            count += Math.max(0, b.getCollectionCount());
            ms += Math.max(0, b.getCollectionTime());
        }
        return new Pauses(count, ms);
    }
}
