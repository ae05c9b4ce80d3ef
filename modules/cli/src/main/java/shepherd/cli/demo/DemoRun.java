package shepherd.cli.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import shepherd.broker.BrokerStatus;
import shepherd.cli.local.LocalCluster;
import shepherd.zookeeper.EmbeddedZooKeeper;

/**
 * One demo from set-up to summary: an embedded ZooKeeper, a {@link LocalCluster} of three brokers on it, a topic fed
 * by the {@link Producer}, the two {@link Groups}, the {@link Monitor}, a {@link View}; then the {@link Script},
 * a drain phase (producer stopped, consumers catch up), the {@link Summary}, and a teardown that stops every thread
 * and deletes every file, also on failure and on Ctrl-C ({@link #abort}).
 *
 * <p>The demo starts ZooKeeper itself and hands it to the cluster as an external ensemble, because expiring a
 * session server-side needs the server ({@link EmbeddedZooKeeper#expireSession}) and the cluster does not expose its
 * own embedded one.
 */
final class DemoRun {
    static final String TOPIC = "events";
    static final int BROKERS = 3;
    /** How long the drain may take before the missing records are reported as lost. */
    static final Duration DRAIN_MAX = Duration.ofSeconds(30);
    /** How long the end check waits for a single coordinator (a deposed one standing down). */
    static final Duration SETTLE_MAX = Duration.ofSeconds(10);
    /** The embedded server's tick: lets brokers keep the 3 s session {@link LocalCluster} asks for. */
    private static final int ZOOKEEPER_TICK_MS = 200;

    /** What the parts of a running demo share. */
    record Context(long seed, long durationMs, String topic, int brokers, int partitionsPerBroker, Timeline timeline,
                   LocalCluster cluster, EmbeddedZooKeeper zookeeper, Producer producer, DeliveryLog log,
                   Groups groups, Monitor monitor, Script script) {}

    private final DemoOptions options;
    private final PrintStream out;
    private final Timeline timeline = new Timeline(System.nanoTime());
    private final DeliveryLog log = new DeliveryLog();
    private volatile boolean aborted;
    private boolean closed; // guarded by this
    private Path root;
    private EmbeddedZooKeeper zookeeper;
    private LocalCluster cluster;
    private Producer producer;
    private Groups groups;
    private Monitor monitor;
    private View view;

    DemoRun(DemoOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** Runs the whole demo and returns the exit code: 0 if every invariant held, 1 otherwise. */
    int run() {
        out.printf("shepherd demo: seed %d (repeat with --seed %d), duration %ds, %d consumers per group, %d"
                        + " partitions per broker%n", options.seed(), options.seed(), options.duration().toSeconds(),
                options.consumersPerGroup(), options.partitionsPerBroker());
        Summary summary;
        try {
            Context ctx = setUp();
            long scriptStartMs = timeline.nowMs();
            phase("running");
            ctx.script().run(ctx, scriptStartMs, () -> aborted);
            awaitUntil(scriptStartMs + options.duration().toMillis());
            drain();
            List<String> coordinators = awaitOneCoordinator();
            summary = Summary.of(new Summary.Input(options.seed(), producer.produced(), log, groups.names(),
                    monitor.rebalances(), monitor.failovers(), coordinators));
        } catch (Exception e) {
            close();
            if (aborted) {
                out.println("demo interrupted; everything stopped and cleaned up");
                return 1;
            }
            out.println("demo failed: " + e);
            e.printStackTrace(out);
            return 1;
        }
        close();
        summary.lines().forEach(out::println);
        return summary.exitCode();
    }

    private Context setUp() throws IOException {
        root = Files.createTempDirectory("shepherd-demo-");
        timeline.add(Timeline.Kind.DEMO, "starting an embedded ZooKeeper and " + BROKERS + " brokers; records go"
                + " to a temporary directory (deleted at the end)");
        zookeeper = EmbeddedZooKeeper.start(Files.createDirectory(root.resolve("zookeeper")), false,
                ZOOKEEPER_TICK_MS);
        cluster = LocalCluster.builder().brokers(BROKERS).externalZooKeeper(zookeeper.connectString()).build()
                .start();
        List<String> partitions = cluster.createTopic(TOPIC, options.partitionsPerBroker());
        Path logs = root.resolve("logs");
        producer = new Producer(logs, TOPIC, partitions);
        groups = new Groups(cluster, logs, log, TOPIC);
        monitor = new Monitor(cluster, groups, timeline);
        Context ctx = new Context(options.seed(), options.duration().toMillis(), TOPIC, BROKERS,
                options.partitionsPerBroker(), timeline, cluster, zookeeper, producer, log, groups, monitor,
                new Script(new Random(options.seed()), options.duration()));
        view = options.plain() ? new PlainView(ctx, out) : new LiveView(ctx, out);
        view.start();
        monitor.start();
        int coordinator = cluster.awaitCoordinator(Duration.ofSeconds(20));
        timeline.add(Timeline.Kind.DEMO, "cluster up: brokers " + cluster.brokerIds() + ", coordinator broker "
                + coordinator + "; topic " + TOPIC + " with " + partitions.size() + " partitions");
        producer.start();
        for (String g : groups.names()) {
            for (int i = 0; i < options.consumersPerGroup(); i++) {
                groups.join(g);
            }
            timeline.add(Timeline.Kind.DEMO, "group " + g + " (" + describe(groups.subscription(g)) + "): "
                    + Member.ids(groups.all(g)) + " started");
        }
        return ctx;
    }

    private static String describe(Member.Subscription s) {
        return s instanceof Member.Subscription.Static st ? "topic " + st.topic()
                : "whitelist " + ((Member.Subscription.Whitelist) s).regex();
    }

    /** Stops the producer and waits until every group delivered every record, or {@link #DRAIN_MAX} passed. */
    private void drain() throws InterruptedException {
        producer.stop();
        phase("draining");
        timeline.add(Timeline.Kind.DEMO, String.format("producer stopped at %,d records; draining", producer.total()));
        long start = System.nanoTime();
        long deadline = start + DRAIN_MAX.toNanos();
        while (!allDelivered() && System.nanoTime() < deadline && !aborted) {
            Thread.sleep(Monitor.POLL_MS); // polling a condition with a deadline
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        timeline.add(Timeline.Kind.DEMO, allDelivered() ? "drained: every record delivered to every group in "
                + ms + " ms" : "drain gave up after " + ms + " ms with records missing");
        phase("done");
    }

    private boolean allDelivered() {
        var produced = producer.produced();
        return groups.names().stream().allMatch(g -> log.stats(g).missing(produced).isEmpty());
    }

    private void awaitUntil(long ms) throws InterruptedException {
        while (timeline.nowMs() < ms && !aborted) {
            Thread.sleep(Math.min(100, ms - timeline.nowMs() + 1)); // waiting for the clock
        }
        if (aborted) {
            throw new InterruptedException("aborted");
        }
    }

    private void phase(String phase) {
        if (view instanceof LiveView live) {
            live.phase(phase);
        }
    }

    /**
     * The coordinators once the cluster has settled: a deposed coordinator whose session the server expired claims
     * its old epoch until its client reconnects and hears of the expiry, so a short run may end inside that window.
     * Waits up to {@link #SETTLE_MAX} for a single one, then returns whatever there is.
     */
    private List<String> awaitOneCoordinator() throws InterruptedException {
        long deadline = System.nanoTime() + SETTLE_MAX.toNanos();
        List<String> coordinators = coordinators();
        while (coordinators.size() != 1 && System.nanoTime() < deadline && !aborted) {
            Thread.sleep(Monitor.POLL_MS); // polling a condition with a deadline
            coordinators = coordinators();
        }
        return coordinators;
    }

    /** The running brokers that say they coordinate, described for the summary. */
    private List<String> coordinators() {
        List<String> out = new ArrayList<>();
        for (int id : cluster.brokerIds()) {
            BrokerStatus s = cluster.broker(id).status();
            if (s.coordinating()) {
                out.add("broker " + id + " (epoch " + s.epoch() + ", " + s.role() + ")");
            }
        }
        return out;
    }

    /** Ctrl-C: stop everything now (consumers halted rather than shut down: the JVM is leaving). */
    void abort() {
        aborted = true;
        close();
    }

    /** Stops every thread and closes everything this run started, in reverse order; each step runs. Idempotent. */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Throwable> failures = new ArrayList<>();
        attempt(failures, () -> {
            if (view != null) {
                view.stop();
            }
        });
        attempt(failures, () -> {
            if (monitor != null) {
                monitor.stop();
            }
        });
        attempt(failures, () -> {
            if (producer != null) {
                producer.stop();
            }
        });
        if (groups != null) {
            for (var m : groups.everyone()) {
                attempt(failures, aborted ? m::kill : m::shutdown);
            }
        }
        attempt(failures, () -> {
            if (cluster != null) {
                cluster.close();
            }
        });
        attempt(failures, () -> {
            if (zookeeper != null) {
                zookeeper.close();
            }
        });
        attempt(failures, () -> {
            if (root != null) {
                deleteRecursively(root);
            }
        });
        failures.forEach(f -> out.println("cleanup: " + f));
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    private static void attempt(List<Throwable> failures, Step step) {
        try {
            step.run();
        } catch (Exception e) {
            failures.add(e);
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
