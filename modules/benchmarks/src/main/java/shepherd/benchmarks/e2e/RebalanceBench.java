package shepherd.benchmarks.e2e;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import shepherd.cli.local.LocalCluster;
import shepherd.cli.local.LocalClusterBuilder;
import shepherd.coordination.GroupView;
import shepherd.coordination.TriggerState;
import shepherd.coordination.assign.Assignors;

/**
 * Rebalance latency end to end (issue 9, DESIGN §9): a real ZooKeeper server and a real broker on loopback, real
 * consumers in this JVM. For each group size and partition count, a consumer joins, leaves gracefully and fails,
 * {@code --reps} times each, and the harness prints min / p50 / p99 / max of the time from the trigger to the group
 * being stable again, the ZooKeeper operations each one cost, the CPU each kind of thread of this JVM used
 * ({@link ThreadCpu}), and how long each kind of thread of this JVM and of ZooKeeper's waited for a core in the
 * slowest repetitions against the typical ones ({@link RunQueue}).
 *
 * <p><b>Trigger</b>: the coordinator's step that accepted a registration or removed a member. That step sends the
 * RegisterResponse (join) and the first Stop of the run in the same breath, so the harness takes the earliest of
 * "the joiner became REGISTERED" and "a member stopped fetching", as the consumers stamped them: one loopback hop
 * after the coordinator's step. <b>End</b>: the last member started fetching the new generation (it applied
 * Start, which leaves only after the owners multi committed). A failing consumer ({@code halt()}: connection
 * closed, no Leave) is also timed from the halt, since detection (max_ping_retries + 1 missed pings) and the lease
 * wait are what dominate there.
 *
 * <pre>
 * java -cp modules/benchmarks/target/benchmarks.jar shepherd.benchmarks.e2e.RebalanceBench [--quick] [--reps 20] [--warmup 30]
 *      [--consumers 4,16,64] [--partitions 64,1024] [--ping-interval-ms 200] [--max-ping-retries 2]
 *      [--assignor range] [--zookeeper-jvm own] [--zookeeper-jvm-options '-XX:+UseZGC ...'] [--zookeeper-fsync on]
 *      [--cpu-hogs 0] [--out modules/benchmarks/results]
 * </pre>
 * {@code --zookeeper-jvm own}, the default, runs the ZooKeeper server in a JVM of its own ({@link ChildZooKeeper}):
 * its allocation and its collector's pauses stay out of the JVM of the broker and the consumers, as with the
 * ensemble of a deployment, and the CPU and allocation tables have no ZooKeeper server threads. {@code shared} runs
 * it in this JVM, where it allocates over half of what a 64 × 1,024 rebalance allocates and about doubles the
 * length of the JVM's young pauses (modules/benchmarks/HISTORY.md).
 * {@code --zookeeper-jvm-options} gives that JVM options, separated by blanks (none by default: the JVM's own
 * defaults); the Setup line names them and the collector they gave it. How a ZooKeeper JVM is tuned is its
 * operator's choice, so a figure against a target is taken on the defaults; the option exists to measure what a
 * tuning does (docs/operations.md, "ZooKeeper's memory").
 * {@code --zookeeper-fsync off} stops the server forcing its transaction log to disk before it answers a write
 * ({@code zookeeper.forceSync=no}): its writes are then not durable, so no figure against a target is taken so; it
 * exists to measure how much of a latency, and of its tail, is the disk's (docs/performance.md §4).
 * {@code --cpu-hogs N} starts N child JVMs that each spin on a core for the whole run ({@link CpuHog}): other
 * tenants of the machine, on purpose, to tell how a latency holds under load.
 * Group size N means N members while the joiner is in: join goes N−1 → N, leave and fail N → N−1.
 */
public final class RebalanceBench {
    private static final long STABLE_TIMEOUT_MS = 60_000;
    /**
     * After the {@code --warmup} cycles, join + leave repetitions through the measured path in batches of this many
     * (or of {@code --warmup}, if fewer), at most {@code --warmup} of them in all, until a batch in which the
     * compilers of both JVMs worked at most {@link #QUIET_BATCH_JIT_MS_PER_REP} per repetition.
     */
    private static final int WARMUP_BATCH = 20;
    private static final long QUIET_BATCH_JIT_MS_PER_REP = 1;

    private RebalanceBench() {}

    public static void main(String[] argv) throws Exception {
        System.setProperty("shepherd.log.level", System.getProperty("shepherd.log.level", "WARN"));
        Options options = Report.options(RebalanceBench.class, argv, Options::parse);
        Report report = new Report("rebalance", options.commandLine());
        run(report, options);
        report.write(options.out());
        System.exit(0); // consumer and broker threads of a failed run must not keep the JVM alive
    }

    /** The command line, parsed; a bad value is an {@link IllegalArgumentException} naming its option. */
    record Options(int reps, int warmup, List<Integer> sizes, List<Integer> partitionCounts, int pingIntervalMs,
                   int maxPingRetries, String assignor, boolean ownZooKeeperJvm, List<String> zookeeperJvmOptions,
                   boolean zookeeperFsync, int cpuHogs, Path out, String commandLine) {
        Options {
            if (cpuHogs < 0) {
                throw new IllegalArgumentException("--cpu-hogs must be 0 or more, got " + cpuHogs);
            }
            for (String option : zookeeperJvmOptions) {
                if (!option.startsWith("-")) {
                    throw new IllegalArgumentException("--zookeeper-jvm-options takes JVM options, each beginning"
                            + " with '-', got '" + option + "'");
                }
            }
            if (!zookeeperJvmOptions.isEmpty() && !ownZooKeeperJvm) {
                throw new IllegalArgumentException("--zookeeper-jvm-options needs ZooKeeper in a JVM of its own"
                        + " (--zookeeper-jvm own); with --zookeeper-jvm shared, give this JVM the options");
            }
        }

        static Options parse(Report.Args args) {
            boolean quick = args.flag("quick");
            return new Options(args.integer("reps", quick ? 3 : 20), args.integer("warmup", quick ? 3 : 30),
                    args.integers("consumers", quick ? "4" : "4,16,64"),
                    args.integers("partitions", quick ? "64" : "64,1024"), args.integer("ping-interval-ms", 200),
                    args.integer("max-ping-retries", 2), args.string("assignor", Assignors.DEFAULT_NAME),
                    args.choice("zookeeper-jvm", "own", "shared").equals("own"),
                    Arrays.stream(args.string("zookeeper-jvm-options", "").trim().split("\\s+"))
                            .filter(option -> !option.isEmpty()).toList(),
                    args.choice("zookeeper-fsync", "on", "off").equals("on"), args.integer("cpu-hogs", 0),
                    args.out(), args.commandLine(RebalanceBench.class.getName()));
        }
    }

    /** One row per (kind, size, partitions). */
    record Row(String kind, int consumers, int partitions, List<Double> latencyMs, List<Double> fromActionMs,
               List<Double> zkWrites, List<Double> zkRequests, int[] extra, List<Double> stopPhaseMs,
               List<Double> writePhaseMs, List<Double> startPhaseMs, ThreadCpu.Totals cpu, ThreadCpu.Totals alloc,
               int[] irregular, List<JvmWork> work, List<RunQueue.Usage> coreUsage) {
        Row(String kind, int consumers, int partitions) {
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

    static List<Row> run(Report report, Options o) throws Exception {
        LocalClusterBuilder builder = LocalCluster.builder();
        ChildZooKeeper child = null;
        if (o.ownZooKeeperJvm()) {
            child = ChildZooKeeper.start(builder.embeddedTickMs(), o.zookeeperFsync(), o.zookeeperJvmOptions());
            builder.externalZooKeeper(child.connectString());
        } else if (!o.zookeeperFsync()) {
            System.setProperty("zookeeper.forceSync", "no"); // read when the embedded server opens its log
        }
        String setup = child != null ? "ZooKeeper in a JVM of its own (the embedded server; "
                + (o.zookeeperJvmOptions().isEmpty() ? "the JVM's default options"
                        : "JVM options " + String.join(" ", o.zookeeperJvmOptions()))
                + "; collector: " + child.collector() + ")"
                : "embedded ZooKeeper";
        if (!o.zookeeperFsync()) {
            setup += ", its transaction log NOT forced to disk (zookeeper.forceSync=no: writes not durable; only"
                    + " to tell the disk's share of the latency)";
        }
        if (o.cpuHogs() > 0) {
            setup += ", and " + o.cpuHogs() + " other process(es) each spinning on a core for the whole run"
                    + " (--cpu-hogs: other tenants' load, on purpose)";
        }
        Supplier<ChildZooKeeper.Work> serverWork = child == null ? () -> ChildZooKeeper.Work.NONE : child::work;
        RunQueue runQueue = new RunQueue(child == null ? -1 : child.pid());
        try (CpuHog hogs = CpuHog.start(o.cpuHogs())) {
            return run(report, o, builder, setup, serverWork, runQueue);
        } finally {
            if (child != null) {
                child.close();
            }
        }
    }

    private static List<Row> run(Report report, Options o, LocalClusterBuilder builder, String setup,
                                 Supplier<ChildZooKeeper.Work> serverWork, RunQueue runQueue) throws Exception {
        List<Row> rows = new ArrayList<>();
        // While waiting for the compilers to go quiet; while measuring, this JVM's and ZooKeeper's.
        long[] compilationMs = new long[3];
        List<String> warmups = new ArrayList<>();
        // The broker's production rebalance timeouts (Stop 2 s, Start 5 s), not LocalCluster's short test ones: with
        // 256 partitions per consumer a Start starts 256 fetcher threads, which on a loaded 2-core machine can take
        // longer than the test timeout of 1 s, and the group then retries instead of settling.
        try (LocalCluster cluster = builder.brokers(1).rebalanceStopTimeoutMs(2_000)
                .rebalanceStartTimeoutMs(5_000).requestTimeoutMs(5_000).groupAssignor(o.assignor()).start()) {
            cluster.awaitCoordinator(java.time.Duration.ofSeconds(30));
            String zk = cluster.zookeeperConnectString();
            report.line(String.format(Locale.ROOT, "Setup: one broker (LocalCluster defaults: session timeout %d ms,"
                    + " D = 100 ms, lease safety margin 50 ms; Stop and Start timeouts 2 s and 5 s), %s, consumers in this JVM with ping"
                    + " interval %d ms and max_ping_retries %d (lease L = %d ms), %s assignor, %d repetitions, each"
                    + " configuration after %d unmeasured join + leave cycles (JIT warm-up of broker, ZooKeeper and"
                    + " consumers: a long-running coordinator's steady state), then through the measured path (the"
                    + " harness's counting is code to warm up too, and the measured path's pace is not the warm-up's)"
                    + " in batches of %d, at most %d, until a batch in which the JIT compilers of both JVMs worked at"
                    + " most %d ms per repetition, then until this JVM's compilers were quiet for 1 s.",
                    cluster.sessionTimeoutMs(), setup, o.pingIntervalMs(), o.maxPingRetries(),
                    (long) o.pingIntervalMs() * (o.maxPingRetries() + 1), o.assignor(), o.reps(), o.warmup(),
                    Math.min(o.warmup(), WARMUP_BATCH), o.warmup(), QUIET_BATCH_JIT_MS_PER_REP));
            report.line("");
            Quiet quiet = new Quiet(zk, serverWork, runQueue);
            for (int partitions : o.partitionCounts()) {
                cluster.createTopic("t" + partitions, partitions);
            }
            for (int partitions : o.partitionCounts()) {
                for (int n : o.sizes()) {
                    rows.addAll(configuration(cluster, quiet, n, partitions, o.reps(), o.warmup(), o.pingIntervalMs(),
                            o.maxPingRetries(), compilationMs, warmups));
                }
            }
        }
        List<List<String>> table = new ArrayList<>();
        List<List<String>> phases = new ArrayList<>();
        for (Row r : rows) {
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
            cells.add(r.zkGcCell(o.ownZooKeeperJvm()));
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
        return rows;
    }

    /**
     * A table with one line per row, its kind and size, then {@code mean}'s figure per kind of thread ({@code format},
     * or ms when null). Every sampled row has every kind, in one order.
     */
    private static void perKindTable(Report report, List<Row> rows,
                                     Function<Row, Map<String, Double>> mean, String format) {
        List<String> kinds = rows.stream().map(r -> mean.apply(r).keySet()).filter(k -> !k.isEmpty())
                .findFirst().map(List::copyOf).orElse(List.of());
        List<String> header = new ArrayList<>(List.of("kind", "consumers", "partitions"));
        header.addAll(kinds);
        List<List<String>> lines = new ArrayList<>();
        for (Row r : rows) {
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

    private static String verdict(Row r) {
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

    private static List<Row> configuration(LocalCluster cluster, Quiet quiet, int n, int partitions, int reps,
                                           int warmup, int pingIntervalMs, int maxPingRetries, long[] compilationMs,
                                           List<String> warmups)
            throws Exception {
        String group = "g" + n + "x" + partitions;
        String topic = "t" + partitions;
        Members members = new Members(cluster::bootstrap, pingIntervalMs, maxPingRetries);
        List<String> base = new ArrayList<>();
        try {
            for (int i = 0; i < n - 1; i++) {
                String id = String.format("base-%02d", i);
                base.add(id);
                members.start(group, id, topic);
            }
            Members.Stable stable = members.awaitStable(base, -1, -1, STABLE_TIMEOUT_MS);
            awaitRunOver(cluster, group);
            // Unmeasured cycles first: the first rebalances of a JVM run the broker's, ZooKeeper's and the consumers'
            // code interpreted or half-compiled and take several times as long as the thousandth (a coordinator
            // runs for months); JMH's warm-up iterations, for a whole system.
            for (int i = 0; i < warmup; i++) {
                String w = "warm-" + i;
                stable = joinAndSettle(cluster, members, group, topic, base, w, stable);
                members.shutdown(w);
                stable = members.awaitStable(base, stable.epoch(), stable.generation(), STABLE_TIMEOUT_MS);
                awaitRunOver(cluster, group);
            }
            // Then a few through the measured path itself, into rows thrown away: the harness's own counting
            // (ZooKeeper's four-letter words, the threads' CPU clocks) is code too, and compiled late it would compete
            // for the cores with the repetitions measured. Then the JIT compilers must have gone quiet.
            Row join = new Row("join", n, partitions);
            Row leave = new Row("leave", n, partitions);
            Row fail = new Row("fail", n, partitions);
            quiet.await();
            int batch = Math.min(warmup, WARMUP_BATCH);
            int warmed = 0;
            JvmWork lastBatch;
            do {
                JvmWork before = JvmWork.sinceStart(quiet);
                for (int i = 0; i < batch; i++) {
                    stable = joinAndLeave(cluster, members, quiet, group, topic, base, "warm-measured-" + warmed++,
                            stable, new Row("join", n, partitions), new Row("leave", n, partitions));
                }
                lastBatch = JvmWork.sinceStart(quiet).minus(before);
            } while (warmed + batch <= warmup && lastBatch.compiledMs() > QUIET_BATCH_JIT_MS_PER_REP * batch);
            compilationMs[0] += Jit.awaitQuiet();
            warmups.add(String.format(Locale.ROOT, "%d × %d: %d through the measured path, the last %d of them with %d"
                    + " ms of compiling in this JVM and %d in ZooKeeper's", n, partitions, warmed, batch,
                    lastBatch.jitMs(), lastBatch.zkJitMs()));
            System.out.printf(Locale.ROOT, "  %d consumers x %d partitions: warmed up (%d through the measured path),"
                    + " measuring%n", n, partitions, warmed);
            JvmWork measuredBefore = JvmWork.sinceStart(quiet);
            for (int rep = 0; rep < reps; rep++) {
                stable = joinAndLeave(cluster, members, quiet, group, topic, base, "join-" + rep, stable, join, leave);
            }
            JvmWork measured = JvmWork.sinceStart(quiet).minus(measuredBefore);
            compilationMs[1] += measured.jitMs();
            compilationMs[2] += measured.zkJitMs();
            for (int rep = 0; rep < reps; rep++) {
                String y = "fail-" + rep;
                stable = joinAndSettle(cluster, members, group, topic, base, y, stable);
                quiet.await();
                stable = measuredRemoval(cluster, members, quiet, group, base, stable, fail, () -> members.halt(y));
            }
            verifyOwners(cluster, group, base, partitions);
            System.out.printf(Locale.ROOT, "  %d consumers x %d partitions: join p50 %.1f ms, leave p50 %.1f ms,"
                    + " fail p50 %.1f ms (owners verified)%n", n, partitions, Report.median(join.latencyMs()),
                    Report.median(leave.latencyMs()), Report.median(fail.latencyMs()));
            return List.of(join, leave, fail);
        } finally {
            members.closeAll();
        }
    }

    /**
     * One measured join of {@code x} and its graceful leave, each sampled into its row: the latency and its phases,
     * the ZooKeeper operations, the CPU of every thread.
     */
    private static Members.Stable joinAndLeave(LocalCluster cluster, Members members, Quiet quiet, String group,
                                               String topic, List<String> base, String x, Members.Stable stable,
                                               Row join, Row leave) throws Exception {
        List<String> all = with(base, x);
        ZkCounters z0 = quiet.counters();
        RunQueue.Snapshot queue0 = quiet.runQueue().snapshot();
        ThreadCpu.Snapshot cpu0 = ThreadCpu.snapshot();
        JvmWork work0 = JvmWork.sinceStart(quiet);
        long t0 = System.nanoTime();
        members.start(group, x, topic);
        Members.Stable after = members.awaitStable(all, stable.epoch(), stable.generation(), STABLE_TIMEOUT_MS);
        JvmWork work = JvmWork.sinceStart(quiet).minus(work0);
        join.threads(cpu0, ThreadCpu.snapshot());
        RunQueue.Usage cores = RunQueue.between(queue0, quiet.runQueue().snapshot());
        long trigger = Math.min(members.registeredNanos(x), members.firstStopSince(base, t0).orElse(Long.MAX_VALUE));
        join.sample(members, all, trigger, Long.MIN_VALUE, after, work, cores);
        join.extra()[0] += after.generation() - stable.generation() > 1 ? 1 : 0;
        recordZk(quiet, z0, join);
        awaitRunOver(cluster, group);
        return measuredRemoval(cluster, members, quiet, group, base, after, leave, () -> members.shutdown(x));
    }

    /**
     * One measured removal of a member ({@code remove}: a graceful leave or a halt) into {@code row}, timed from the
     * first member's stop after the action; then the coordinator's run is waited out.
     */
    private static Members.Stable measuredRemoval(LocalCluster cluster, Members members, Quiet quiet, String group,
                                                  List<String> base, Members.Stable stable, Row row,
                                                  Removal remove) throws Exception {
        ZkCounters z0 = quiet.counters();
        RunQueue.Snapshot queue0 = quiet.runQueue().snapshot();
        ThreadCpu.Snapshot cpu0 = ThreadCpu.snapshot();
        JvmWork work0 = JvmWork.sinceStart(quiet);
        long t0 = System.nanoTime();
        remove.run();
        Members.Stable after = members.awaitStable(base, stable.epoch(), stable.generation(), STABLE_TIMEOUT_MS);
        JvmWork work = JvmWork.sinceStart(quiet).minus(work0);
        row.threads(cpu0, ThreadCpu.snapshot());
        RunQueue.Usage cores = RunQueue.between(queue0, quiet.runQueue().snapshot());
        OptionalLong stop = members.firstStopSince(base, t0);
        if (stop.isPresent()) {
            row.sample(members, base, stop.getAsLong(), t0, after, work, cores);
        } else {
            row.irregular()[0]++; // no member stopped after the action: another run moved the group
        }
        row.extra()[0] += after.generation() - stable.generation() > 1 ? 1 : 0;
        recordZk(quiet, z0, row);
        awaitRunOver(cluster, group);
        return after;
    }

    /**
     * The JVMs' own work that can fall into a repetition: this JVM's collector pauses, its JIT compilations (counted
     * when they end) and the pauses and compilations of ZooKeeper's JVM ({@link Quiet#serverWork}); totals, or their growth.
     */
    record JvmWork(Gc.Pauses gc, long jitMs, Gc.Pauses zkGc, long zkJitMs) {
        static JvmWork sinceStart(Quiet quiet) {
            ChildZooKeeper.Work server = quiet.serverWork();
            return new JvmWork(Gc.sinceStart(), Jit.totalMs(), server.gc(), server.jitMs());
        }

        JvmWork minus(JvmWork before) {
            return new JvmWork(gc.minus(before.gc), jitMs - before.jitMs, zkGc.minus(before.zkGc),
                    zkJitMs - before.zkJitMs);
        }

        /** Compilation milliseconds of both JVMs. */
        long compiledMs() {
            return jitMs + zkJitMs;
        }

        /** Of a growth: neither JVM paused nor finished a compilation. */
        boolean none() {
            return gc.count() == 0 && jitMs == 0 && zkGc.count() == 0 && zkJitMs == 0;
        }
    }

    /** Removing a member from the group: {@code Members.shutdown} or {@code Members.halt}. */
    @FunctionalInterface
    private interface Removal {
        void run() throws Exception;
    }

    /** An unmeasured join of {@code id}: the group is stable again, the coordinator's run over. */
    private static Members.Stable joinAndSettle(LocalCluster cluster, Members members, String group, String topic,
                                                List<String> base, String id, Members.Stable stable) throws Exception {
        members.start(group, id, topic);
        Members.Stable after = members.awaitStable(with(base, id), stable.epoch(), stable.generation(),
                STABLE_TIMEOUT_MS);
        awaitRunOver(cluster, group);
        return after;
    }

    /**
     * Waits until the coordinator's own run is over: every StartResponse in (a consumer answers Start once its fetcher
     * threads are started, seed rebalance 4.3, so at 1,024 partitions the answers trail the consumers' Start by
     * hundreds of milliseconds) and no run owed. The next action then meets an idle group, as a single rebalance
     * should be measured; without this a join could land in the previous run's tail and wait for it.
     */
    private static void awaitRunOver(LocalCluster cluster, String group) throws InterruptedException {
        long deadline = System.currentTimeMillis() + STABLE_TIMEOUT_MS;
        while (System.currentTimeMillis() < deadline) {
            OptionalInt coordinator = cluster.coordinatorId();
            if (coordinator.isPresent()) {
                GroupView view = cluster.broker(coordinator.getAsInt()).status().groups().get(group);
                if (view != null && !view.running() && view.trigger() == TriggerState.IDLE) {
                    return;
                }
            }
            Thread.sleep(2); // polling the broker's status between repetitions, never inside a measured one
        }
        throw new IllegalStateException("group " + group + " still rebalancing after " + STABLE_TIMEOUT_MS + " ms");
    }

    private static void recordZk(Quiet quiet, ZkCounters before, Row row) throws InterruptedException {
        quiet.await();
        ZkCounters d = quiet.counters().minus(before);
        row.zkWrites().add((double) d.zxid());
        row.zkRequests().add((double) Math.max(0, d.packetsReceived() - quiet.probeCost()));
    }

    private static List<String> with(List<String> base, String extra) {
        List<String> all = new ArrayList<>(base);
        all.add(extra);
        return all;
    }

    /** The owners in ZooKeeper name exactly the stable members, and every partition has one. */
    private static void verifyOwners(LocalCluster cluster, String group, List<String> members, int partitions) {
        Map<String, Map<String, String>> owners = cluster.owners(group);
        int owned = owners.values().stream().mapToInt(Map::size).sum();
        Set<String> owning = new TreeSet<>();
        owners.values().forEach(m -> owning.addAll(m.values()));
        int expectedOwners = Math.min(members.size(), partitions);
        if (owned != partitions || !members.containsAll(owning) || owning.size() != expectedOwners) {
            throw new IllegalStateException("owners in ZooKeeper do not match the stable group " + group + ": "
                    + owned + " of " + partitions + " partitions owned, by " + owning + "; members " + members);
        }
    }

    /**
     * Waits until the ZooKeeper server has seen no request for a while, so a repetition's count holds everything it
     * caused (the coordinator re-reads a group after each member change it writes) and nothing of the next one.
     */
    static final class Quiet {
        private static final long QUIET_WINDOW_MS = 40;
        private static final long QUIET_MAX_MS = 5_000;
        private final String zk;
        private final Supplier<ChildZooKeeper.Work> serverWork;
        private final RunQueue runQueue;
        private final long probeCost;

        /**
         * {@code serverWork}: the pauses and compilations of the server's JVM so far, when it is not this one (else
         * none); {@code
         * runQueue}: the waits for a core of this JVM's threads and the server's.
         */
        Quiet(String zk, Supplier<ChildZooKeeper.Work> serverWork, RunQueue runQueue) {
            this.zk = zk;
            this.serverWork = serverWork;
            this.runQueue = runQueue;
            ZkCounters a = ZkCounters.read(zk);
            ZkCounters b = ZkCounters.read(zk);
            this.probeCost = b.minus(a).packetsReceived(); // what reading the counters itself adds
        }

        long probeCost() {
            return probeCost;
        }

        ZkCounters counters() {
            return ZkCounters.read(zk);
        }

        ChildZooKeeper.Work serverWork() {
            return serverWork.get();
        }

        RunQueue runQueue() {
            return runQueue;
        }

        void await() throws InterruptedException {
            long deadline = System.currentTimeMillis() + QUIET_MAX_MS;
            ZkCounters last = counters();
            while (System.currentTimeMillis() < deadline) {
                Thread.sleep(QUIET_WINDOW_MS); // a window with no traffic is the condition, checked by counting
                ZkCounters now = counters();
                ZkCounters d = now.minus(last);
                if (d.zxid() == 0 && d.packetsReceived() <= probeCost) {
                    return;
                }
                last = now;
            }
        }
    }
}
