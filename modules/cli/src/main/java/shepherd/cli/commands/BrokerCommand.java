package shepherd.cli.commands;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import shepherd.broker.Broker;
import shepherd.broker.BrokerConfig;
import shepherd.broker.InvalidConfigException;
import shepherd.zookeeper.EmbeddedZooKeeper;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code shepherd broker}: runs one broker until SIGINT or SIGTERM, then shuts it down gracefully (the coordinator
 * hands over, docs/broker.md) and exits 0.
 *
 * <p><b>Configuration.</b> {@code --config} reads a properties file ({@link BrokerConfig#fromProperties} keys), then
 * {@code --set key=value}, then the named flags are applied on top ({@link BrokerConfig#withOverrides}); every value
 * is checked before anything starts, and an error names the key and the value.
 *
 * <p><b>Stopping.</b> SIGINT and SIGTERM are caught ({@code sun.misc.Signal}), so the JVM does not begin its own
 * shutdown and the command returns its exit code normally: 0 after a clean handover. A second signal exits at once.
 * A shutdown hook covers every other way the JVM may end (SIGHUP, {@code System.exit} elsewhere, a JVM run with
 * {@code -Xrs}): it asks for the same graceful stop and waits for it. Embedding code and tests call {@link #stop()}
 * or interrupt the thread running the command.
 *
 * <p>Both are in place before anything starts. A stop asked for during the start is served when the start returns
 * (it is bounded: {@link Broker#startTimeoutMs}): by then the broker may already have won the election, and only
 * the handover lets the next coordinator skip the lease wait. Were the signal left to the JVM instead, the broker
 * would die half-started, without a handover.
 */
@Command(name = "broker", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run a Shepherd broker until SIGINT or SIGTERM, then hand over and stop (exit code 0).",
            "Settings: --config file, then --set KEY=VALUE, then the flags below; see docs/broker.md for every key."})
public final class BrokerCommand extends AdminCommand {
    /** The value of {@code --zookeeper} that starts an in-process server. */
    public static final String EMBEDDED = "embedded";
    /** The embedded server's tick is at least this; a session may last 2 – 20 ticks. */
    private static final int EMBEDDED_TICK_MIN_MS = 200;
    /** Added to shutdown.timeout.ms for how long a shutdown hook waits for the stop to finish. */
    private static final long STOP_SLACK_MS = 10_000;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Broker properties file (keys as in docs/broker.md); the flags override it.")
    Path configFile;

    @Option(names = "--broker-id", paramLabel = "ID", description = "broker.id: this broker's id (required here or"
            + " in --config), 0-2147483647; unique among live brokers.")
    Integer brokerId;

    @Option(names = "--listen-host", paramLabel = "HOST",
            description = "listen.host: address to bind (default 0.0.0.0).")
    String listenHost;

    @Option(names = "--port", paramLabel = "PORT",
            description = "listen.port: port to bind (default 9092; 0 picks a free port).")
    Integer port;

    @Option(names = "--advertised-host", paramLabel = "HOST",
            description = "advertised.host: host consumers are told to connect to (default: the listen host, or"
                    + " this machine's name for a wildcard).")
    String advertisedHost;

    @Option(names = "--advertised-port", paramLabel = "PORT",
            description = "advertised.port: port consumers are told (default: the bound port).")
    Integer advertisedPort;

    @Option(names = "--zookeeper", paramLabel = "CONNECT|embedded",
            description = {"zookeeper.connect: host:port[,host:port...][/chroot] (default 127.0.0.1:2181), or"
                    + " 'embedded' to start a ZooKeeper server inside this process.",
                "embedded is for single-machine trials only: no quorum, and its data is lost with the process"
                    + " unless --zookeeper-data-dir is given."})
    String zookeeper;

    @Option(names = "--zookeeper-data-dir", paramLabel = "DIR",
            description = "Data directory of the embedded ZooKeeper, kept after the stop (default: a temporary"
                    + " directory, deleted at the stop).")
    Path zookeeperDataDir;

    @Option(names = "--session-timeout-ms", paramLabel = "MS",
            description = "session.timeout.ms: ZooKeeper session timeout (default 6000, 1000-600000).")
    Long sessionTimeoutMs;

    @Option(names = "--shutdown-timeout-ms", paramLabel = "MS",
            description = "shutdown.timeout.ms: how long a stop waits for the handover (default 30000).")
    Long shutdownTimeoutMs;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "Any other broker setting, e.g. --set rebalance.stop.timeout.ms=1000 (repeatable).")
    Map<String, String> settings = new LinkedHashMap<>();

    /** Where the running broker can be reached; completed once it is registered, or exceptionally if it failed. */
    public record Running(int brokerId, String listenHost, int port, String advertisedHost, int advertisedPort,
                          String zookeeperConnect, boolean embeddedZooKeeper) {}

    private final CompletableFuture<Running> running = new CompletableFuture<>();
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);

    /** Completes when the broker is registered and serving (exceptionally if it could not start). */
    public CompletableFuture<Running> running() {
        return running;
    }

    /** Asks the running command for a graceful stop; returns at once. Idempotent, also before the start. */
    public void stop() {
        stopRequested.countDown();
    }

    /** Waits until the command has stopped everything it started (or failed to start). */
    public boolean awaitStopped(long timeout, TimeUnit unit) throws InterruptedException {
        return stopped.await(timeout, unit);
    }

    @Override
    String defaultLogLevel() {
        return "INFO"; // a broker's log is the cluster's story: elections, rebalances, sessions
    }

    @Override
    int execute() throws Exception {
        try {
            return runBroker();
        } catch (Exception | Error e) {
            running.completeExceptionally(e);
            throw e;
        } finally {
            stopped.countDown();
        }
    }

    private int runBroker() throws Exception {
        Logger log = LoggerFactory.getLogger(BrokerCommand.class); // after Logging.configure
        boolean embedded = EMBEDDED.equals(zookeeper);
        if (zookeeperDataDir != null && !embedded) {
            throw new UsageException("--zookeeper-data-dir is for --zookeeper embedded only");
        }
        // Check every value before starting anything: with the embedded server, its address is known only later.
        BrokerConfig config = config(embedded ? "127.0.0.1:2181" : null);
        EmbeddedZooKeeper server = null;
        Thread hook = shutdownHook(config, embedded);
        List<Runnable> restoreSignals = catchSignals(log);
        try {
            log.info("broker {} starting (SIGINT/SIGTERM from now on stop it gracefully, once it has started)",
                    config.brokerId());
            if (embedded) {
                server = startEmbedded(config.sessionTimeoutMs(), log);
                config = config.withOverrides(Map.of(BrokerConfig.ZOOKEEPER_CONNECT, server.connectString()));
            }
            Broker broker = Broker.start(config);
            Running r = new Running(broker.brokerId(), config.listenHost(), broker.port(), broker.info().host(),
                    broker.info().port(), config.zookeeperConnect(), embedded);
            out().printf("broker %d listening on %s:%d, advertised as %s:%d, ZooKeeper %s%s%n", r.brokerId(),
                    r.listenHost(), r.port(), r.advertisedHost(), r.advertisedPort(), r.zookeeperConnect(),
                    embedded ? " (embedded)" : "");
            out().flush();
            running.complete(r);
            boolean interrupted = awaitStopRequest();
            out().printf("broker %d stopping: handing over (up to %d ms)%n", r.brokerId(),
                    config.shutdownTimeoutMs());
            out().flush();
            boolean clean = broker.shutdown();
            if (interrupted) {
                Thread.currentThread().interrupt(); // for our caller, now that the broker is down
            }
            if (!clean) {
                err().printf("broker %d: the handover did not finish within shutdown.timeout.ms=%d; closed anyway"
                        + " (the next coordinator waits out the leases)%n", r.brokerId(), config.shutdownTimeoutMs());
                return EXIT_FAILURE;
            }
            out().printf("broker %d stopped cleanly%n", r.brokerId());
            return EXIT_OK;
        } finally {
            restoreSignals.forEach(Runnable::run);
            removeHook(hook);
            if (server != null) {
                server.close();
            }
        }
    }

    /** The merged configuration: file, then --set, then flags; {@code zookeeperOverride} replaces the connect. */
    BrokerConfig config(String zookeeperOverride) {
        Map<String, String> values = new LinkedHashMap<>();
        if (configFile != null) {
            readProperties(configFile).forEach((k, v) -> values.put(k.toString(), v.toString()));
        }
        values.putAll(settings);
        putIfSet(values, BrokerConfig.BROKER_ID, brokerId);
        putIfSet(values, BrokerConfig.LISTEN_HOST, listenHost);
        putIfSet(values, BrokerConfig.LISTEN_PORT, port);
        putIfSet(values, BrokerConfig.ADVERTISED_HOST, advertisedHost);
        putIfSet(values, BrokerConfig.ADVERTISED_PORT, advertisedPort);
        putIfSet(values, BrokerConfig.ZOOKEEPER_CONNECT, zookeeperOverride != null ? zookeeperOverride : zookeeper);
        putIfSet(values, BrokerConfig.SESSION_TIMEOUT_MS, sessionTimeoutMs);
        putIfSet(values, BrokerConfig.SHUTDOWN_TIMEOUT_MS, shutdownTimeoutMs);
        Properties properties = new Properties();
        properties.putAll(values);
        try {
            return BrokerConfig.fromProperties(properties);
        } catch (InvalidConfigException e) {
            throw new UsageException(e.getMessage()
                    + (configFile != null ? " (settings from " + configFile + " and the flags)" : ""));
        }
    }

    private static void putIfSet(Map<String, String> values, String key, Object value) {
        if (value != null) {
            values.put(key, value.toString());
        }
    }

    private static Properties readProperties(Path file) {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        } catch (NoSuchFileException e) {
            throw new UsageException("--config " + file + " does not exist");
        } catch (IOException | IllegalArgumentException e) {
            throw new UsageException("--config " + file + " cannot be read: " + e.getMessage());
        }
        return p;
    }

    private EmbeddedZooKeeper startEmbedded(long sessionTimeoutMs, Logger log) throws IOException {
        boolean temporary = zookeeperDataDir == null;
        Path dir = temporary ? Files.createTempDirectory("shepherd-zk-")
                : Files.createDirectories(zookeeperDataDir);
        // A tick of at least 1/20 of the session timeout, or the server would cut the session to 20 ticks.
        int tickMs = (int) Math.max(EMBEDDED_TICK_MIN_MS, (sessionTimeoutMs + 19) / 20);
        EmbeddedZooKeeper server = EmbeddedZooKeeper.start(dir, temporary, tickMs);
        log.warn("""
                
                ************************************************************************
                *  EMBEDDED ZOOKEEPER at {} -- FOR SINGLE-MACHINE TRIALS ONLY
                *  One server inside this broker's process: NO QUORUM, no failover.
                *  If this process stops, ZooKeeper stops with it and every broker and
                *  consumer of the cluster loses its coordination.
                *  Data in {}: {}
                *  For anything else run a ZooKeeper ensemble and pass --zookeeper.
                ************************************************************************""",
                server.connectString(), dir, temporary ? "DELETED when this broker stops (topics, offsets LOST)"
                        : "kept after the stop");
        return server;
    }

    /**
     * Waits for {@link #stop()}, a signal or the shutdown hook. An interrupt is a stop request too (tests,
     * embedding); it returns true then, with the flag cleared so that the handover does not give up at once.
     */
    private boolean awaitStopRequest() {
        try {
            stopRequested.await();
            return false;
        } catch (InterruptedException e) {
            return true;
        }
    }

    /** Asks for the graceful stop and waits for it, the start too if it is still running. */
    private Thread shutdownHook(BrokerConfig config, boolean embedded) {
        long waitMs = (embedded ? EmbeddedZooKeeper.START_TIMEOUT_MS : 0) + Broker.startTimeoutMs(config)
                + config.shutdownTimeoutMs() + STOP_SLACK_MS;
        Thread hook = new Thread(() -> {
            stop();
            try {
                stopped.await(waitMs, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "shepherd-broker-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    private static void removeHook(Thread hook) {
        if (hook == null) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is running and waits for us
        }
    }

    /**
     * The first SIGINT/SIGTERM asks for the graceful stop; a second one, while the handover runs, exits at once
     * (the next coordinator then waits out the leases). Returns how to put the previous handlers back.
     */
    private List<Runnable> catchSignals(Logger log) {
        List<Runnable> restore = new ArrayList<>();
        for (String name : List.of("INT", "TERM")) {
            try {
                Signal signal = new Signal(name);
                SignalHandler previous = Signal.handle(signal, s -> {
                    if (stopRequested.getCount() == 0) {
                        log.warn("second SIG{}: exiting without waiting for the handover", s.getName());
                        Runtime.getRuntime().halt(128 + s.getNumber());
                    }
                    log.info("SIG{}: stopping gracefully (send it again to exit at once)", s.getName());
                    stop();
                });
                restore.add(() -> Signal.handle(signal, previous));
            } catch (IllegalArgumentException e) {
                // Not available (e.g. -Xrs): the shutdown hook stops the broker instead.
            }
        }
        return restore;
    }
}
