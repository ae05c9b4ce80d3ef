package shepherd.benchmarks.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import shepherd.broker.BrokerConfig;
import shepherd.cli.admin.ZkAdmin;
import shepherd.zookeeper.EmbeddedZooKeeper;
import shepherd.zookeeper.ZkPaths;

/**
 * Coordinator failover end to end (issue 9, DESIGN §9): an embedded ZooKeeper in this JVM, two brokers as child
 * JVMs, {@code --groups} groups of {@code --consumers} real consumers in this JVM. Each repetition stops the
 * coordinator — {@code kill -9} (SIGKILL) or SIGTERM (graceful handover) — and times, from the signal, until every
 * group is stable again under the new coordinator's epoch (every member applied a Start of the new epoch, so the
 * owners are written). The stopped broker is then started again, as a follower, for the next repetition.
 *
 * <pre>
 * java -cp modules/benchmarks/target/benchmarks.jar shepherd.benchmarks.e2e.FailoverBench [--quick] [--reps 10]
 *      [--groups 4] [--consumers 4] [--partitions 64] [--session-timeout-ms 3000] [--ping-interval-ms 200]
 *      [--max-ping-retries 2] [--warmup-ms 1000] [--out modules/benchmarks/results]
 * </pre>
 *
 * <p>A (re)started broker is signalled only once it has logged {@code warm-up done} ({@code warmup.ms}, the broker's
 * default 1000): a rolling restart waits for the restarted broker to be ready. {@code --warmup-ms 0} measures the
 * cold standby instead, whose first takeover is its JVM's first run of the coordinator's code.
 */
public final class FailoverBench {
    private static final long STABLE_TIMEOUT_MS = 60_000;

    private FailoverBench() {}

    public static void main(String[] argv) throws Exception {
        System.setProperty("shepherd.log.level", System.getProperty("shepherd.log.level", "WARN"));
        Options o = Report.options(FailoverBench.class, argv, Options::parse);
        Report report = new Report("failover", o.commandLine());
        run(report, o.reps(), o.groups(), o.consumers(), o.partitions(), o.sessionTimeoutMs(), o.pingIntervalMs(),
                o.maxPingRetries(), o.warmupMs());
        report.write(o.out());
        System.exit(0);
    }

    /** The command line, parsed. */
    record Options(int reps, int groups, int consumers, int partitions, int sessionTimeoutMs, int pingIntervalMs,
                   int maxPingRetries, int warmupMs, Path out, String commandLine) {
        static Options parse(Report.Args args) {
            boolean quick = args.flag("quick");
            return new Options(args.integer("reps", quick ? 2 : 10), args.integer("groups", quick ? 2 : 4),
                    args.integer("consumers", 4), args.integer("partitions", 64),
                    args.integer("session-timeout-ms", 3_000), args.integer("ping-interval-ms", 200),
                    args.integer("max-ping-retries", 2), args.integer("warmup-ms", 1_000),
                    args.out(), args.commandLine(FailoverBench.class.getName()));
        }
    }

    static void run(Report report, int reps, int groupCount, int consumers, int partitions, int sessionTimeoutMs,
                    int pingIntervalMs, int maxPingRetries, int warmupMs) throws Exception {
        long messageDelayMaxMs = 100;
        long marginMs = 50;
        long leaseMs = (long) pingIntervalMs * (maxPingRetries + 1);
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(BrokerConfig.SESSION_TIMEOUT_MS, Integer.toString(sessionTimeoutMs));
        settings.put(BrokerConfig.MESSAGE_DELAY_MAX_MS, Long.toString(messageDelayMaxMs));
        settings.put(BrokerConfig.LEASE_SAFETY_MARGIN_MS, Long.toString(marginMs));
        settings.put(BrokerConfig.REBALANCE_STOP_TIMEOUT_MS, "500");
        settings.put(BrokerConfig.REBALANCE_START_TIMEOUT_MS, "1000");
        settings.put(BrokerConfig.REQUEST_TIMEOUT_MS, "1000");
        settings.put(BrokerConfig.HANDOVER_GRACE_MS, "200");
        settings.put(BrokerConfig.WARMUP_MS, Integer.toString(warmupMs));
        report.line(String.format(Locale.ROOT, "Setup: embedded ZooKeeper (tick 200 ms) in the harness JVM, two"
                + " brokers as child JVMs (session timeout %d ms, D = %d ms, lease safety margin %d ms, handover"
                + " grace 200 ms, warm-up %d ms, each broker signalled only once its warm-up is done), %d groups ×"
                + " %d consumers in the harness JVM on one topic of %d partitions (ping interval %d ms,"
                + " max_ping_retries %d: lease L = %d ms), %d repetitions per kind.",
                sessionTimeoutMs, messageDelayMaxMs, marginMs, warmupMs, groupCount, consumers, partitions,
                pingIntervalMs, maxPingRetries, leaseMs, reps));
        report.line("");
        Path logDir = Files.createTempDirectory("shepherd-failover-");
        List<Double> killed = new ArrayList<>();
        List<Double> graceful = new ArrayList<>();
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(Files.createTempDirectory("shepherd-failover-zk-"), true,
                200)) {
            ZkAdmin.createChroot(zk.connectString(), "/bench");
            String connect = zk.connectString() + "/bench";
            Map<Integer, ChildBroker> brokers = new LinkedHashMap<>();
            Members members = null;
            try (ZkAdmin admin = ZkAdmin.open(connect)) {
                admin.writeTopic("t", Map.of(1, partitions / 2, 2, partitions - partitions / 2),
                        ZkAdmin.TopicWrite.SET);
                for (int id = 1; id <= 2; id++) {
                    ChildBroker b = new ChildBroker(id, connect, settings, List.of("-Xmx256m"), logDir);
                    brokers.put(id, b);
                    b.start();
                    awaitReady(admin, b, warmupMs);
                }
                List<java.net.InetSocketAddress> bootstrap = brokers.values().stream().map(ChildBroker::address)
                        .toList();
                members = new Members(() -> bootstrap, pingIntervalMs, maxPingRetries);
                Map<String, List<String>> groups = new LinkedHashMap<>();
                for (int g = 0; g < groupCount; g++) {
                    List<String> ids = new ArrayList<>();
                    for (int c = 0; c < consumers; c++) {
                        String id = "g" + g + "-c" + c;
                        ids.add(id);
                        members.start("g" + g, id, "t");
                    }
                    groups.put("g" + g, ids);
                }
                Map<String, Members.Stable> stable = awaitAll(members, groups, -1, -1);
                for (int rep = 0; rep < reps; rep++) {
                    for (boolean kill : List.of(true, false)) {
                        String anyMember = groups.values().iterator().next().get(0);
                        ChildBroker coordinator = brokers.get(members.coordinatorOf(anyMember));
                        int epoch = stable.values().iterator().next().epoch();
                        long t0 = System.nanoTime();
                        if (kill) {
                            coordinator.kill();
                        } else {
                            coordinator.terminate();
                        }
                        Map<String, Members.Stable> after = awaitAll(members, groups, epoch, Integer.MAX_VALUE);
                        long last = after.values().stream().mapToLong(Members.Stable::lastStartedNanos).max()
                                .orElseThrow();
                        (kill ? killed : graceful).add(Report.millis(last - t0));
                        System.out.printf(Locale.ROOT, "  %s of broker %d (epoch %d): every group stable under"
                                + " epoch %d after %.1f ms%n", kill ? "kill -9" : "SIGTERM", coordinator.id, epoch,
                                after.values().iterator().next().epoch(), Report.millis(last - t0));
                        stable = after;
                        coordinator.awaitExit();
                        awaitGone(admin, coordinator);
                        coordinator.start();
                        awaitReady(admin, coordinator, warmupMs);
                    }
                }
            } finally {
                if (members != null) {
                    members.closeAll();
                }
                for (ChildBroker b : brokers.values()) {
                    if (b.alive()) {
                        b.kill();
                    }
                }
            }
        }
        long bound = sessionTimeoutMs + leaseMs + 500;
        List<List<String>> rows = new ArrayList<>();
        List<String> k = new ArrayList<>(List.of("kill -9"));
        k.addAll(Report.summary(killed));
        k.add(String.format(Locale.ROOT, "%s (≤ %d = session %d + L %d + 500)",
                Report.max(killed) <= bound ? "met" : "MISSED", bound, sessionTimeoutMs, leaseMs));
        rows.add(k);
        List<String> g = new ArrayList<>(List.of("SIGTERM (graceful handover)"));
        g.addAll(Report.summary(graceful));
        g.add((Report.max(graceful) <= 200 ? "met" : "MISSED") + " (≤ 200)");
        rows.add(g);
        report.line("Failover, signal to the coordinator → every group stable under the new epoch (ms):");
        report.line("");
        report.table(List.of("stop", "min", "p50", "p99", "max", "n", "target (DESIGN §9, on max)"), rows);
        System.out.println("broker logs of this run: " + logDir); // not in the result file: a local path
    }

    private static Map<String, Members.Stable> awaitAll(Members members, Map<String, List<String>> groups,
                                                        int afterEpoch, int afterGeneration) throws Exception {
        Map<String, Members.Stable> stable = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : groups.entrySet()) {
            stable.put(e.getKey(), members.awaitStable(e.getValue(), afterEpoch, afterGeneration, STABLE_TIMEOUT_MS));
        }
        return stable;
    }

    /** Registered, and (with a warm-up) warmed up: what a rolling restart waits for before the next stop. */
    private static void awaitReady(ZkAdmin admin, ChildBroker b, int warmupMs) throws InterruptedException {
        awaitRegistered(admin, b);
        if (warmupMs > 0 && !b.awaitLogged("warm-up done", 60_000)) {
            throw new IllegalStateException("broker " + b.id + " did not finish its warm-up (see its log)");
        }
    }

    private static void awaitRegistered(ZkAdmin admin, ChildBroker b) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 60_000;
        while (!admin.exists(ZkPaths.broker(b.id))) {
            if (!b.alive() || System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("broker " + b.id + " did not register (see its log)");
            }
            Thread.sleep(20); // polling ZooKeeper for a condition, with a deadline
        }
    }

    /** After kill -9 the broker's ephemeral registration stays until its session expires. */
    private static void awaitGone(ZkAdmin admin, ChildBroker b) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 60_000;
        while (admin.exists(ZkPaths.broker(b.id))) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("broker " + b.id + "'s registration did not go away");
            }
            Thread.sleep(20);
        }
    }
}
