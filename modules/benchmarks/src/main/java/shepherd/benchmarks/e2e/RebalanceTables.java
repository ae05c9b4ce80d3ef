package shepherd.benchmarks.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The tables {@link RebalanceBench} reports from its rows, and the notes that say how to read them: the latency
 * with its tail once the JVMs' own work is set aside, the phases, the waits for a core, the CPU and the allocation
 * per rebalance, and the JIT compilation around the measured repetitions.
 */
final class RebalanceTables {
    private RebalanceTables() {}

    /**
     * {@code compilationMs}: while waiting for the compilers to go quiet, then while measuring, this JVM's and
     * ZooKeeper's; {@code warmups}: one line per configuration on its warm-up through the measured path.
     */
    static void write(Report report, List<RebalanceRow> rows, boolean ownZooKeeperJvm, long[] compilationMs,
                      List<String> warmups) {
        List<List<String>> table = new ArrayList<>();
        List<List<String>> phases = new ArrayList<>();
        for (RebalanceRow r : rows) {
            List<String> cells = new ArrayList<>(List.of(r.kind(), Integer.toString(r.consumers()),
                    Integer.toString(r.partitions())));
            cells.addAll(Report.summary(r.latencyMs()));
            cells.add(r.fromActionMs().isEmpty() ? "-" : Report.ms(Report.median(r.fromActionMs())));
            cells.add(Report.num(Report.median(r.zkWrites())));
            cells.add(Report.num(Report.median(r.zkRequests())) + " (max " + Report.num(Report.max(r.zkRequests()))
                    + ")");
            cells.add(r.extra()[0] + (r.irregular()[0] > 0 ? " (" + r.irregular()[0] + " not timed)" : ""));
            cells.add(r.gcCell());
            cells.add(p99(r.latencyWithoutGcMs()));
            cells.add(r.jitCell());
            cells.add(r.zkGcCell(ownZooKeeperJvm));
            cells.add(p99(r.latencyWithoutJvmWorkMs()));
            cells.add(verdict(r));
            table.add(cells);
            phases.add(List.of(r.kind(), Integer.toString(r.consumers()), Integer.toString(r.partitions()),
                    medianAndP99(r.stopPhaseMs()), medianAndP99(r.writePhaseMs()), medianAndP99(r.startPhaseMs())));
        }
        report.line("Rebalance latency, trigger → every member started and owners written (ms):");
        report.line("");
        report.table(List.of("kind", "consumers", "partitions", "min", "p50", "p99", "max", "n",
                "p50 from action", "ZK writes p50", "ZK requests p50", "extra generations", "GC pauses in",
                "p99 without them", "JIT compiling in", "ZooKeeper's GC pauses in", "p99 without any",
                "target (DESIGN §9)"),
                table);
        report.line("\"from action\": from the harness's call (shutdown() / halt()) instead of the trigger. ZK writes:"
                + " write transactions (each multi is one) from the action until ZooKeeper is quiet again; ZK requests:"
                + " every request the server received meanwhile, reads and client heartbeats included. \"extra"
                + " generations\": triggers after which the group moved more than one generation. \"GC pauses in\":"
                + " how many repetitions a garbage collection pause fell into, and those pauses' milliseconds (every"
                + " thread stops, and this JVM holds every consumer's threads); \"p99 without them\": the p99 of the"
                + " other repetitions, to tell the collector's share of the tail. \"JIT compiling in\": how many"
                + " repetitions a JIT compilation of this JVM or of ZooKeeper's ended in, and the compilations'"
                + " milliseconds in each (a compiler thread takes one of the cores meanwhile; a JVM counts a"
                + " compilation when it ends, so one that straddles two repetitions counts in the second, and the"
                + " cores table below says how long the compiler threads actually ran in each repetition); \"ZooKeeper's GC pauses in\": the same as the first"
                + " for the collector of ZooKeeper's own JVM (a pause there holds whatever write it was serving); \"p99"
                + " without any\": the p99 of the repetitions none of the three fell into. The target is judged on all"
                + " of them.");
        report.line("");
        report.line("Where the time goes (p50 / p99 of each phase, ms), from the consumers' stamps: Stop round = trigger →"
                + " last member stopped; owners write = last stopped → first member started (the coordinator's"
                + " existence probes and fenced multi; for a failed member also the rest of its lease); Start round ="
                + " first → last member started.");
        report.line("");
        report.table(List.of("kind", "consumers", "partitions", "Stop round", "owners write", "Start round"),
                phases);
        report.line("");
        List<List<String>> coreLines = new ArrayList<>();
        rows.forEach(r -> coreLines.addAll(r.coreLines()));
        if (!coreLines.isEmpty()) {
            report.line("Waiting for a core (mean ms per repetition, from the action until the group was stable"
                    + " again, \"waited / ran\"): how long the threads of each kind stood runnable in the run queue"
                    + " without a core, and how long they ran, in the typical repetitions (latency at or below the p50)"
                    + " and in the slowest (at or above the p95); from Linux's per-thread scheduler statistics of this"
                    + " JVM and of ZooKeeper's (/proc/<pid>/task/<tid>/schedstat). \"host stole\": the time the host took the machine's virtual cores away meanwhile"
                    + " (/proc/stat, in 10 ms steps). The waits of threads that stood in line side by side add up, so a"
                    + " column can exceed the latency; what compares with the latency is how much more the slowest"
                    + " repetitions waited than the typical ones.");
            report.line("");
            List<String> header = new ArrayList<>(List.of("kind", "consumers", "partitions", "repetitions", "n",
                    "latency"));
            for (RunQueue.Kind k : RunQueue.Kind.values()) {
                header.add(k.label());
            }
            header.add("host stole");
            report.table(header, coreLines);
            report.line("");
        }
        report.line("CPU per rebalance (mean ms of CPU time per repetition, from the action until the group was"
                + " stable again, by kind of thread of this JVM: set against the latency and the machine's cores, it"
                + " says whether a rebalance waits for a core or for a hand-off):");
        report.line("");
        perKindTable(report, rows, r -> r.cpu().meanMs(), null);
        report.line("");
        report.line("Allocation per rebalance (mean MB allocated per repetition by the same kinds of thread: what fills"
                + " the young generation, hence how often a GC pause can fall into a rebalance):");
        report.line("");
        perKindTable(report, rows, r -> r.alloc().meanMb(), "%.2f");
        report.line(String.format(Locale.ROOT, "JIT compilation: %d ms while the harness waited for the compilers to"
                + " go quiet before measuring; during the measured join and leave repetitions, %d ms in this JVM and"
                + " %d ms in ZooKeeper's. Warm-up through the measured path, join + leave repetitions: %s.",
                compilationMs[0], compilationMs[1], compilationMs[2], String.join("; ", warmups)));
    }

    /**
     * A table with one line per row, its kind and size, then {@code mean}'s figure per kind of thread ({@code format},
     * or ms when null). Every sampled row has every kind, in one order.
     */
    private static void perKindTable(Report report, List<RebalanceRow> rows,
                                     Function<RebalanceRow, Map<String, Double>> mean, String format) {
        List<String> kinds = rows.stream().map(r -> mean.apply(r).keySet()).filter(k -> !k.isEmpty())
                .findFirst().map(List::copyOf).orElse(List.of());
        List<String> header = new ArrayList<>(List.of("kind", "consumers", "partitions"));
        header.addAll(kinds);
        List<List<String>> lines = new ArrayList<>();
        for (RebalanceRow r : rows) {
            List<String> cells = new ArrayList<>(List.of(r.kind(), Integer.toString(r.consumers()),
                    Integer.toString(r.partitions())));
            Map<String, Double> m = mean.apply(r);
            kinds.forEach(k -> {
                double v = m.getOrDefault(k, 0.0);
                cells.add(format == null ? Report.ms(v) : String.format(Locale.ROOT, format, v));
            });
            lines.add(cells);
        }
        report.table(header, lines);
    }

    /** The p99 of {@code latencies}, or "-" if there are none. */
    private static String p99(List<Double> latencies) {
        return latencies.isEmpty() ? "-" : Report.ms(Report.percentile(
                Report.sorted(latencies), 99));
    }

    private static String medianAndP99(List<Double> values) {
        if (values.isEmpty()) {
            return "-";
        }
        double[] v = Report.sorted(values);
        return Report.ms(Report.percentile(v, 50)) + " / " + Report.ms(Report.percentile(v, 99));
    }

    private static String verdict(RebalanceRow r) {
        if (r.kind().equals("fail")) {
            return "-";
        }
        double p50 = Report.median(r.latencyMs());
        double[] sorted = Report.sorted(r.latencyMs());
        double p99 = sorted.length == 0 ? Double.NaN : Report.percentile(sorted, 99);
        if (r.consumers() == 16 && r.partitions() == 64) {
            boolean ok = p50 <= 5 && p99 <= 20;
            return (ok ? "met" : "MISSED") + " (p50 ≤ 5, p99 ≤ 20)";
        }
        if (r.consumers() == 64 && r.partitions() == 1024) {
            return (p99 <= 50 ? "met" : "MISSED") + " (p99 ≤ 50)";
        }
        return "-";
    }
}
