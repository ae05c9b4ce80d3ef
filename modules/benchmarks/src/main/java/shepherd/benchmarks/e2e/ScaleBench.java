package shepherd.benchmarks.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import shepherd.broker.BrokerConfig;
import shepherd.cli.admin.ZkAdmin;
import shepherd.zookeeper.EmbeddedZooKeeper;

/**
 * One coordinator under many consumers (issue 9, DESIGN §9: 10,000 consumers in 1,000 groups, 1 s pings, within one
 * core and 512 MiB): the coordinator is a broker in a JVM of its own ({@code -Xmx512m}), a second broker stands by,
 * and the consumers are {@link SimConsumers} in the harness's JVM, registering {@code --batch-groups} groups at a
 * time (each batch stable before the next). Once every group is stable the harness measures,
 * over {@code --window-s}, the broker process's CPU time (per wall-clock second: cores), the pings per second the
 * consumers answered, and the heap after a full GC ({@code jcmd GC.run}, then {@code GC.heap_info}); then it kills
 * the coordinator ({@code kill -9}) and times until every group is stable again under the standby.
 *
 * <pre>
 * java -cp modules/benchmarks/target/benchmarks.jar shepherd.benchmarks.e2e.ScaleBench [--quick] [--groups 1000]
 *      [--consumers-per-group 10] [--partitions-per-group 20] [--batch-groups 50] [--window-s 30]
 *      [--failover-timeout-s 300]
 *      [--out modules/benchmarks/results]
 * </pre>
 */
public final class ScaleBench {
    private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");
    /** The 1 s pings of DESIGN §9's scale target, and the default retries. */
    private static final int PING_INTERVAL_MS = 1_000;
    private static final int MAX_PING_RETRIES = 2;

    private ScaleBench() {}

    public static void main(String[] argv) throws Exception {
        System.setProperty("shepherd.log.level", System.getProperty("shepherd.log.level", "WARN"));
        Options o = Report.options(ScaleBench.class, argv, Options::parse);
        Report report = new Report("scale", o.commandLine());
        run(report, o.groups(), o.perGroup(), o.partitions(), o.windowS(), o.batchGroups(), o.failoverTimeoutS(),
                o.sessionTimeoutMs(), PING_INTERVAL_MS, MAX_PING_RETRIES);
        report.write(o.out());
        System.exit(0);
    }

    /** The command line, parsed. */
    record Options(int groups, int perGroup, int partitions, int windowS, int batchGroups, int failoverTimeoutS,
                   int sessionTimeoutMs, Path out, String commandLine) {
        static Options parse(Report.Args args) {
            boolean quick = args.flag("quick");
            return new Options(args.integer("groups", quick ? 50 : 1_000), args.integer("consumers-per-group", 10),
                    args.integer("partitions-per-group", 20), args.integer("window-s", quick ? 5 : 30),
                    args.integer("batch-groups", quick ? 10 : 50), args.integer("failover-timeout-s", 300),
                    args.integer("session-timeout-ms", 6_000), args.out(),
                    args.commandLine(ScaleBench.class.getName()));
        }
    }

    static void run(Report report, int groupCount, int perGroup, int partitions, int windowS, int batchGroups,
                    int failoverTimeoutS, int sessionTimeoutMs, int pingIntervalMs, int maxPingRetries)
            throws Exception {
        int topics = Math.min(10, groupCount);
        long leaseMs = (long) pingIntervalMs * (maxPingRetries + 1);
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(BrokerConfig.SESSION_TIMEOUT_MS, Integer.toString(sessionTimeoutMs));
        settings.put(BrokerConfig.MESSAGE_DELAY_MAX_MS, "100");
        settings.put(BrokerConfig.LEASE_SAFETY_MARGIN_MS, "50");
        report.line(String.format(Locale.ROOT, "Setup: embedded ZooKeeper (tick 400 ms) in the harness JVM; the"
                + " coordinator and a standby broker as child JVMs with -Xmx512m (session timeout %d ms, D = 100 ms,"
                + " margin 50 ms); %d groups × %d simulated consumers (%d in all) on one TransportClient with 2 I/O"
                + " threads in the harness JVM; group i subscribes to topic s(i mod %d), %d partitions each, one"
                + " stream per consumer; ping interval %d ms, max_ping_retries %d (L = %d ms); consumers register %d"
                + " groups at a time, each batch stable before the next; measuring window %d s.",
                sessionTimeoutMs, groupCount, perGroup, groupCount * perGroup, topics, partitions, pingIntervalMs,
                maxPingRetries, leaseMs, batchGroups, windowS));
        report.line("");
        Path logDir = Files.createTempDirectory("shepherd-scale-");
        List<List<String>> rows = new ArrayList<>();
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(Files.createTempDirectory("shepherd-scale-zk-"), true,
                400)) {
            ZkAdmin.createChroot(zk.connectString(), "/scale");
            String connect = zk.connectString() + "/scale";
            List<ChildBroker> brokers = new ArrayList<>();
            try (ZkAdmin admin = ZkAdmin.open(connect)) {
                for (int t = 0; t < topics; t++) {
                    admin.writeTopic("s" + t, Map.of(1, partitions), ZkAdmin.TopicWrite.SET);
                }
                for (int id = 1; id <= 2; id++) {
                    ChildBroker b = new ChildBroker(id, connect, settings,
                            List.of("-Xmx512m", "-XX:+UseG1GC"), logDir);
                    brokers.add(b);
                    b.start();
                    awaitRegistered(admin, b);
                }
                ChildBroker coordinator = brokers.get(0); // started first, so elected first
                try (SimConsumers sims = new SimConsumers(brokers.stream().map(ChildBroker::address).toList(),
                        pingIntervalMs, maxPingRetries, 2)) {
                    long t0 = System.nanoTime();
                    // Group by group, as a fleet rolls out: all 10,000 at once kept every group's first runs
                    // retrying (Stop and Start rounds of hundreds of groups at once on a loaded machine) without
                    // converging. Each batch is stable before the next registers.
                    for (int first = 0; first < groupCount; first += batchGroups) {
                        for (int g = first; g < Math.min(groupCount, first + batchGroups); g++) {
                            for (int c = 0; c < perGroup; c++) {
                                sims.add("g" + g, "g" + g + "-c" + c, "s" + (g % topics));
                            }
                        }
                        awaitStable(sims, -1, partitions, Duration.ofMinutes(3));
                    }
                    double joinS = (System.nanoTime() - t0) / 1e9;
                    System.out.printf(Locale.ROOT, "  all %d groups stable %.1f s after the first consumer"
                            + " connected%n", groupCount, joinS);
                    // steady state
                    Thread.sleep(2_000); // let the join's stragglers (re-reads, ZooKeeper answers) settle
                    long cpu0 = cpuNanos(coordinator);
                    long pings0 = sims.pings.get();
                    long w0 = System.nanoTime();
                    Thread.sleep(windowS * 1_000L); // the measuring window itself
                    long cpu1 = cpuNanos(coordinator);
                    long pings1 = sims.pings.get();
                    double wallS = (System.nanoTime() - w0) / 1e9;
                    double cores = (cpu1 - cpu0) / 1e9 / wallS;
                    double pingsPerS = (pings1 - pings0) / wallS;
                    long heapKiB = heapAfterGcKiB(coordinator);
                    // failover
                    int epoch = sims.commonEpoch();
                    long k0 = System.nanoTime();
                    coordinator.kill();
                    String failover;
                    try {
                        awaitStable(sims, epoch, partitions, Duration.ofSeconds(failoverTimeoutS));
                        failover = Report.ms((sims.lastStartNanos() - k0) / 1e6);
                    } catch (IllegalStateException e) {
                        // The steady state measured above still counts; say how far the failover got.
                        failover = "not stable: " + e.getMessage();
                    }
                    rows.add(List.of(Integer.toString(groupCount * perGroup), Integer.toString(groupCount),
                            String.format(Locale.ROOT, "%.3f", cores), String.format(Locale.ROOT, "%.0f", pingsPerS),
                            String.format(Locale.ROOT, "%.1f", heapKiB / 1024.0),
                            String.format(Locale.ROOT, "%.1f", joinS), failover,
                            (cores <= 1 && heapKiB <= 512 * 1024 ? "met" : "MISSED") + " (≤ 1 core, ≤ 512 MiB)"));
                }
            } finally {
                for (ChildBroker b : brokers) {
                    if (b.alive()) {
                        b.kill();
                    }
                }
            }
        }
        report.line("One coordinator under load (steady state over the window, then kill -9 of it):");
        report.line("");
        report.table(List.of("consumers", "groups", "coordinator CPU (cores)", "pings/s", "heap after GC (MiB)",
                "initial join, all stable (s)", "failover, kill -9 → all stable (ms)", "target (DESIGN §9)"), rows);
        report.line("CPU: the broker process's CPU time over the window divided by its length (1.0 = one core"
                + " busy). Heap: used heap of the broker JVM right after `jcmd <pid> GC.run`.");
        System.out.println("broker logs of this run: " + logDir); // not in the result file: a local path
        report.line("");
    }

    private static void awaitStable(SimConsumers sims, int afterEpoch, int partitions, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int last = -100; // so that "0 of N" is printed too
        while (true) {
            int stable = sims.stableGroups(afterEpoch, partitions);
            if (stable == sims.groupCount()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + stable + " of " + sims.groupCount() + " groups stable"
                        + " within " + timeout);
            }
            if (stable / 100 != last / 100) {
                System.out.println("  " + stable + " of " + sims.groupCount() + " groups stable");
                last = stable;
            }
            Thread.sleep(50); // polling a condition with a deadline
        }
    }

    private static long cpuNanos(ChildBroker b) {
        return ProcessHandle.of(b.pid()).flatMap(p -> p.info().totalCpuDuration())
                .orElseThrow(() -> new IllegalStateException("no CPU time for broker " + b.id)).toNanos();
    }

    private static long heapAfterGcKiB(ChildBroker b) throws IOException, InterruptedException {
        jcmd(b, "GC.run");
        String info = jcmd(b, "GC.heap_info");
        Matcher m = HEAP_USED.matcher(info);
        if (!m.find()) {
            throw new IllegalStateException("no heap figure in: " + info);
        }
        return Long.parseLong(m.group(1));
    }

    private static String jcmd(ChildBroker b, String command) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(b.pid()), command).redirectErrorStream(true)
                .start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return text;
    }

    private static void awaitRegistered(ZkAdmin admin, ChildBroker b) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 60_000;
        while (!admin.exists(shepherd.zookeeper.ZkPaths.broker(b.id))) {
            if (!b.alive() || System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("broker " + b.id + " did not register (see its log)");
            }
            Thread.sleep(20);
        }
    }
}
