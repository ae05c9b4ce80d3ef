package shepherd.benchmarks.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntPredicate;

/**
 * One row of {@link RebalanceBench}'s tables: the repetitions of one kind (join, leave, fail) at one group size and
 * partition count, each repetition's latency, its phases, the ZooKeeper operations and the JVMs' work in it.
 */
record RebalanceRow(String kind, int consumers, int partitions, List<Double> latencyMs, List<Double> fromActionMs,
                    List<Double> zkWrites, List<Double> zkRequests, int[] extra, List<Double> stopPhaseMs,
                    List<Double> writePhaseMs, List<Double> startPhaseMs, ThreadCpu.Totals cpu, ThreadCpu.Totals alloc,
                    int[] irregular, List<JvmWork> work, List<RunQueue.Usage> coreUsage) {
    RebalanceRow(String kind, int consumers, int partitions) {
        this(kind, consumers, partitions, new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                new ArrayList<>(), new int[1], new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                new ThreadCpu.Totals(), new ThreadCpu.Totals(), new int[1], new ArrayList<>(), new ArrayList<>());
    }

    /** The CPU and the allocation of every kind of thread between two snapshots around one repetition. */
    void threads(ThreadCpu.Snapshot before, ThreadCpu.Snapshot after) {
        cpu.add(ThreadCpu.between(before, after));
        alloc.add(ThreadCpu.allocatedBetween(before, after));
    }

    /** The latencies of the repetitions no GC pause fell into (a timed repetition has one entry in each). */
    List<Double> latencyWithoutGcMs() {
        return latencyWhere(i -> work.get(i).gc().count() == 0);
    }

    /**
     * The latencies of the repetitions that no GC pause of this JVM or of ZooKeeper's fell into and no JIT
     * compilation of either JVM ended in: what the tail is once the JVMs' own work is set aside.
     */
    List<Double> latencyWithoutJvmWorkMs() {
        return latencyWhere(i -> work.get(i).none());
    }

    private List<Double> latencyWhere(IntPredicate repetition) {
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < latencyMs.size(); i++) {
            if (repetition.test(i)) {
                out.add(latencyMs.get(i));
            }
        }
        return out;
    }

    /**
     * Two lines of the cores table: the typical repetitions (latency at or below the p50) and the slowest (at or
     * above the p95), each with how many, their mean latency, the mean milliseconds each kind of thread waited for
     * a core and ran in them ("waited / ran"), and the host's steal; none when the kernel's figures could not be
     * read.
     */
    List<List<String>> coreLines() {
        if (latencyMs.isEmpty() || coreUsage.size() != latencyMs.size() || coreUsage.contains(null)) {
            return List.of();
        }
        double[] sorted = Report.sorted(latencyMs);
        double p50 = Report.percentile(sorted, 50);
        double p95 = Report.percentile(sorted, 95);
        return List.of(coreLine("≤ p50", i -> latencyMs.get(i) <= p50),
                coreLine("≥ p95", i -> latencyMs.get(i) >= p95));
    }

    private List<String> coreLine(String which, IntPredicate repetition) {
        int n = 0;
        double latency = 0;
        RunQueue.Kind[] kinds = RunQueue.Kind.values();
        long[] waited = new long[kinds.length];
        long[] ran = new long[kinds.length];
        long stolen = 0;
        for (int i = 0; i < latencyMs.size(); i++) {
            if (repetition.test(i)) {
                RunQueue.Usage u = coreUsage.get(i);
                n++;
                latency += latencyMs.get(i);
                for (RunQueue.Kind k : kinds) {
                    waited[k.ordinal()] += u.waitNs(k);
                    ran[k.ordinal()] += u.cpuNs(k);
                }
                stolen += u.stealNs();
            }
        }
        List<String> cells = new ArrayList<>(List.of(kind, Integer.toString(consumers),
                Integer.toString(partitions), which, Integer.toString(n), Report.ms(latency / n)));
        for (RunQueue.Kind k : kinds) {
            cells.add(Report.ms(waited[k.ordinal()] / 1e6 / n) + " / " + Report.ms(ran[k.ordinal()] / 1e6 / n));
        }
        cells.add(Report.ms(stolen / 1e6 / n));
        return cells;
    }

    /** "k (m ms)": how many timed repetitions a GC pause fell into, and those pauses' milliseconds. */
    String gcCell() {
        return pausesCell(JvmWork::gc);
    }

    /** The same for the pauses of ZooKeeper's JVM ("-" when it runs in this one, whose pauses are above). */
    String zkGcCell(boolean ownJvm) {
        return ownJvm ? pausesCell(JvmWork::zkGc) : "-";
    }

    private String pausesCell(Function<JvmWork, Gc.Pauses> pauses) {
        return hitsCell(work.stream().map(pauses).filter(p -> p.count() > 0).count(),
                work.stream().map(pauses).mapToLong(Gc.Pauses::ms).sum());
    }

    /**
     * "k (m + z ms)": how many timed repetitions a JIT compilation of this JVM or of ZooKeeper's ended in, and
     * those compilations' milliseconds in this JVM and in ZooKeeper's.
     */
    String jitCell() {
        long repetitions = work.stream().filter(w -> w.jitMs() > 0 || w.zkJitMs() > 0).count();
        return repetitions == 0 ? "0" : repetitions + " (" + work.stream().mapToLong(JvmWork::jitMs).sum()
                + " + " + work.stream().mapToLong(JvmWork::zkJitMs).sum() + " ms)";
    }

    private static String hitsCell(long repetitions, long ms) {
        return repetitions == 0 ? "0" : repetitions + " (" + ms + " ms)";
    }

    /**
     * One repetition: the trigger, the last member's stop, the first and the last member's start. The three
     * phases: Stop round (trigger → last stopped), owners write (last stopped → first started: the fenced
     * multi, its existence probes, and for a failed member the rest of its lease), Start round.
     */
    void sample(Members members, List<String> ids, long triggerNanos, long actionNanos, Members.Stable after,
                JvmWork work, RunQueue.Usage cores) {
        long lastStop = members.lastStopSince(ids, triggerNanos).orElse(triggerNanos);
        long firstStart = members.firstStartedNanos(ids, after);
        latencyMs.add(Report.millis(after.lastStartedNanos() - triggerNanos));
        this.work.add(work);
        coreUsage.add(cores);
        if (actionNanos != Long.MIN_VALUE) {
            fromActionMs.add(Report.millis(after.lastStartedNanos() - actionNanos));
        }
        stopPhaseMs.add(Report.millis(lastStop - triggerNanos));
        writePhaseMs.add(Report.millis(firstStart - lastStop));
        startPhaseMs.add(Report.millis(after.lastStartedNanos() - firstStart));
    }
}
