package shepherd.benchmarks.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import shepherd.cli.local.LocalCluster;
import shepherd.cli.local.LocalClusterBuilder;
import shepherd.coordination.GroupView;
import shepherd.coordination.TriggerState;

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
 *
 * <p>This class drives the cluster and the members and times each repetition into a {@link RebalanceRow};
 * {@link RebalanceTables} turns the rows into the report, {@link ZkQuiet} tells when ZooKeeper has gone quiet
 * between repetitions, and {@link RebalanceOptions} is the parsed command line.
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
        RebalanceOptions options = Report.options(RebalanceBench.class, argv, RebalanceOptions::parse);
        Report report = new Report("rebalance", options.commandLine());
        run(report, options);
        report.write(options.out());
        System.exit(0); // consumer and broker threads of a failed run must not keep the JVM alive
    }

    static List<RebalanceRow> run(Report report, RebalanceOptions o) throws Exception {
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

    private static List<RebalanceRow> run(Report report, RebalanceOptions o, LocalClusterBuilder builder, String setup,
                                 Supplier<ChildZooKeeper.Work> serverWork, RunQueue runQueue) throws Exception {
        List<RebalanceRow> rows = new ArrayList<>();
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
            ZkQuiet quiet = new ZkQuiet(zk, serverWork, runQueue);
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
        RebalanceTables.write(report, rows, o.ownZooKeeperJvm(), compilationMs, warmups);
        return rows;
    }

    private static List<RebalanceRow> configuration(LocalCluster cluster, ZkQuiet quiet, int n, int partitions,
                                                    int reps, int warmup, int pingIntervalMs, int maxPingRetries,
                                                    long[] compilationMs, List<String> warmups)
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
            RebalanceRow join = new RebalanceRow("join", n, partitions);
            RebalanceRow leave = new RebalanceRow("leave", n, partitions);
            RebalanceRow fail = new RebalanceRow("fail", n, partitions);
            quiet.await();
            int batch = Math.min(warmup, WARMUP_BATCH);
            int warmed = 0;
            JvmWork lastBatch;
            do {
                JvmWork before = JvmWork.sinceStart(quiet);
                for (int i = 0; i < batch; i++) {
                    stable = joinAndLeave(cluster, members, quiet, group, topic, base, "warm-measured-" + warmed++,
                            stable, new RebalanceRow("join", n, partitions), new RebalanceRow("leave", n, partitions));
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
    private static Members.Stable joinAndLeave(LocalCluster cluster, Members members, ZkQuiet quiet, String group,
                                               String topic, List<String> base, String x, Members.Stable stable,
                                               RebalanceRow join, RebalanceRow leave) throws Exception {
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
    private static Members.Stable measuredRemoval(LocalCluster cluster, Members members, ZkQuiet quiet, String group,
                                                  List<String> base, Members.Stable stable, RebalanceRow row,
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

    private static void recordZk(ZkQuiet quiet, ZkCounters before, RebalanceRow row) throws InterruptedException {
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

}
