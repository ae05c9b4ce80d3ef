package shepherd.broker;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.EnumSet;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.coordination.Coordinator;
import shepherd.coordination.CoordinatorEvent;
import shepherd.coordination.defect.Defect;
import shepherd.protocol.BrokerInfo;
import shepherd.transport.TransportServer;
import shepherd.zookeeper.ZkLoop;
import shepherd.zookeeper.ZooKeeperAdapter;
import shepherd.zookeeper.ZooKeeperClient;

/**
 * The composition root of one broker process: the transport server, the ZooKeeper adapter and the event loop that
 * owns the coordinator core, wired so that the loop is the only thread that touches the core (the server's handler
 * and the adapter's sink only enqueue).
 *
 * <p><b>Start order.</b> Bind first, so the advertised port is known before anyone can read it from
 * {@code /brokers/ids/[id]}; open the adapter with the loop's queue as its sink; start the loop (Boot runs for
 * election); then register the broker and wait for it, so a duplicate broker id fails {@link #start} rather than
 * leaving a half-started broker.
 *
 * <p><b>Shutdown.</b> Always through the core's handover: a coordinator stops every group, records
 * {@code handover: true} under its epoch and resigns, so the next coordinator can skip the lease wait; a follower
 * resigns at once (so it cannot win the election while closing). Then the adapter closes its session, which removes
 * the broker's ephemeral nodes, and the server and the loop stop.
 *
 * <p><b>Metrics.</b> The loop reports to {@link BrokerMetrics}; with {@code metrics.port} set, a small HTTP server
 * serves them at {@code GET /metrics}. It is bound right after the transport server, before ZooKeeper is touched,
 * so a port in use fails {@link #start} at once, and it stops with the broker.
 */
public final class Broker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);
    private static final long STATUS_TIMEOUT_MS = 5_000;

    private final BrokerConfig config;
    private final BrokerLoop loop;
    private final TransportServer server;
    private final ZooKeeperAdapter adapter;
    private final BrokerInfo info;
    private final MetricsServer metricsServer; // null when metrics.port is not set
    private boolean closed;

    private Broker(BrokerConfig config, BrokerLoop loop, TransportServer server, ZooKeeperAdapter adapter,
                   BrokerInfo info, MetricsServer metricsServer) {
        this.config = config;
        this.metricsServer = metricsServer;
        this.loop = loop;
        this.server = server;
        this.adapter = adapter;
        this.info = info;
    }

    /**
     * Starts a broker and returns once it is registered in ZooKeeper.
     *
     * @throws IOException if the listen address, or the metrics address when {@code metrics.port} is set, cannot be
     *                     bound
     * @throws IllegalStateException if the registration fails (e.g. another live broker holds the id) or does not
     *                               complete within the session timeout
     */
    public static Broker start(BrokerConfig config) throws IOException {
        Objects.requireNonNull(config, "config");
        LongSupplier clock = () -> System.nanoTime() / 1_000_000; // monotonic: the lease arithmetic needs it
        Coordinator core = coordinator(config);
        ZooKeeperAdapter[] adapterRef = new ZooKeeperAdapter[1];
        BrokerMetrics metrics = new BrokerMetrics(config.brokerId());
        BrokerLoop loop = new BrokerLoop(core, clock, effect -> adapterRef[0].execute(effect),
                config.requestTimeoutMs(), config.brokerId(), metrics);
        TransportServer server = TransportServer.bind(config.listenHost(), config.listenPort(),
                config.transportConfig(), loop.connectionHandler());
        metrics.bindMalformedFrames(server, TransportServer::malformedFrames);
        MetricsServer metricsServer = null;
        ZooKeeperAdapter adapter;
        try {
            if (config.metricsEnabled()) {
                metricsServer = MetricsServer.start(config.metricsBindHost(), config.metricsPort(),
                        () -> scrape(loop, metrics), "shepherd-broker-metrics-" + config.brokerId());
            }
            ZooKeeperAdapter.Config zk = ZooKeeperAdapter.Config.of(config.zookeeperConnect(),
                    (int) config.sessionTimeoutMs(), config.brokerId());
            // The adapter's own thread: its tasks never wait behind the loop's, nor the loop's behind ZooKeeper's.
            adapter = ZooKeeperAdapter.open(config.fencing() ? zk : zk.withoutEpochBump(),
                    ZooKeeperClient.factory(zk.connectString(), zk.sessionTimeoutMs()),
                    ZkLoop.ownThread("shepherd-zk-adapter-" + config.brokerId()), loop::enqueue, clock);
        } catch (IOException | RuntimeException e) {
            if (metricsServer != null) {
                metricsServer.close();
            }
            server.close();
            throw e;
        }
        adapterRef[0] = adapter;
        String host = advertisedHost(config);
        int port = config.advertisedPort() == 0 ? server.port() : config.advertisedPort();
        BrokerInfo info = new BrokerInfo(config.brokerId(), host, port, host + "-" + System.currentTimeMillis());
        Broker broker = new Broker(config, loop, server, adapter, info, metricsServer);
        loop.start();
        try {
            adapter.registerBroker(info).get(registrationTimeoutMs(config), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | InterruptedException e) {
            broker.halt();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException("broker " + config.brokerId() + " could not register in ZooKeeper at "
                    + config.zookeeperConnect() + ": " + cause, cause);
        }
        LOG.info("broker started broker={} listen={}:{} advertised={}:{} zookeeper={} sessionTimeoutMs={}"
                + " metricsPort={}", config.brokerId(), config.listenHost(), server.port(), host, port,
                config.zookeeperConnect(), config.sessionTimeoutMs(), broker.metricsPort());
        startWarmup(config, adapter, server.port());
        return broker;
    }

    /**
     * The coordinator's code run on private state in the background ({@link Warmup}, {@code warmup.ms}); then the
     * ZooKeeper side of a takeover rehearsed: the topics and up to {@value #WARMUP_READ_GROUPS_MAX} groups read with
     * the answers discarded, and a write always refused at its epoch check ({@link ZooKeeperAdapter#rehearseTakeover});
     * then {@value #WARMUP_CONSULTS} Consults sent to this broker over a connection of its own ({@link SelfConsult}).
     * A standby's first takeover should not be its JVM's first run of that code: loading the tree and answering its
     * consumers' first requests are most of a takeover. None of it changes anything the broker holds or the tree, or
     * arms a watch; if it fails, the broker is only slower at its first takeover.
     */
    private static void startWarmup(BrokerConfig config, ZooKeeperAdapter adapter, int port) {
        if (config.warmupMs() <= 0) {
            return;
        }
        Thread t = new Thread(() -> {
            long started = System.nanoTime();
            try {
                int rounds = Warmup.run(config.warmupMs());
                ZooKeeperAdapter.Rehearsal zk = rehearseTakeover(adapter, config);
                int consults = SelfConsult.run(config.listenHost(), port, WARMUP_CONSULTS, config.sessionTimeoutMs());
                LOG.info("warm-up done broker={} rounds={} groupsRead={} writeRefused={} consultsAnswered={}"
                        + " durationMs={}", config.brokerId(), rounds, zk.groupsRead(), zk.writeRefused(), consults,
                        (System.nanoTime() - started) / 1_000_000);
            } catch (RuntimeException e) {
                LOG.warn("warm-up failed broker={} (no harm done: the first takeover will only be slower)",
                        config.brokerId(), e);
            }
        }, "shepherd-warmup-" + config.brokerId());
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    /** Consults a standby's warm-up sends itself: enough for the JIT to compile the request path. */
    static final int WARMUP_CONSULTS = 2_000;

    /** The groups read once by a standby's warm-up: enough to run every step of loading a group many times over. */
    static final int WARMUP_READ_GROUPS_MAX = 16;

    /** The warm-up's rehearsal; groups −1 if it did not end within a session timeout (the session changed, say). */
    private static ZooKeeperAdapter.Rehearsal rehearseTakeover(ZooKeeperAdapter adapter, BrokerConfig config) {
        ZooKeeperAdapter.Rehearsal none = new ZooKeeperAdapter.Rehearsal(-1, false);
        try {
            return adapter.rehearseTakeover(WARMUP_READ_GROUPS_MAX).get(config.sessionTimeoutMs(),
                    TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return none;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return none;
        }
    }

    /**
     * How long {@link #start} may take at most, about: binding is quick, the registration waits up to this (two
     * session timeouts, so that a previous process's session can expire first, plus slack). A caller that must wait
     * out a start, such as a shutdown hook installed before it, waits this long.
     */
    public static long startTimeoutMs(BrokerConfig config) {
        return registrationTimeoutMs(config) + 5_000;
    }

    private static long registrationTimeoutMs(BrokerConfig config) {
        return 2L * config.sessionTimeoutMs() + 5_000;
    }

    /**
     * The core, or under {@code test.fencing=disabled} (which {@link BrokerConfig} admits only in a test build) the
     * seed's unfenced coordinator: no epoch check on writes, commands without a provably live session, no
     * post-election lease wait. With the adapter's unbumped election that is the chaos suite's negative control.
     */
    private static Coordinator coordinator(BrokerConfig config) {
        if (config.fencing()) {
            return new Coordinator(config.coordinatorConfig());
        }
        LOG.warn("FENCING DISABLED ({}={}): broker {} is unsafe, for fault-injection tests only",
                BrokerConfig.TEST_FENCING, BrokerConfig.FENCING_DISABLED, config.brokerId());
        return new Coordinator(config.coordinatorConfig(), EnumSet.of(Defect.NO_FENCING, Defect.NO_LEASE_WAIT));
    }

    /**
     * One scrape: the gauges from a fresh snapshot of the core, then every meter. A loop too busy to answer within
     * the bound leaves the gauges at their previous values rather than hanging the scraper.
     */
    private static String scrape(BrokerLoop loop, BrokerMetrics metrics) {
        try {
            loop.refreshMetrics().get(STATUS_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("metrics gauges not refreshed: the event loop did not answer within {} ms", STATUS_TIMEOUT_MS);
        }
        return metrics.scrape();
    }

    private static String advertisedHost(BrokerConfig config) {
        if (!config.advertisedHost().isEmpty()) {
            return config.advertisedHost();
        }
        String listen = config.listenHost();
        if (!listen.equals("0.0.0.0") && !listen.equals("::") && !listen.equals("[::]")) {
            return listen;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "127.0.0.1";
        }
    }

    public int brokerId() {
        return config.brokerId();
    }

    /** The port the transport server is bound to (the real one when {@code listen.port} is 0). */
    public int port() {
        return server.port();
    }

    /** The port {@code GET /metrics} is served on (the real one when {@code metrics.port} is 0), or -1 if none. */
    public int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.port();
    }

    /** What this broker registered under {@code /brokers/ids/[id]}. */
    public BrokerInfo info() {
        return info;
    }

    /** Role, epoch and groups, read on the loop thread. */
    public BrokerStatus status() {
        try {
            return loop.call(core -> new BrokerStatus(config.brokerId(), core.role(), core.epoch(), core.groups()))
                    .get(STATUS_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the status of broker " + config.brokerId(), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("broker " + config.brokerId() + " did not report its status: " + e, e);
        }
    }

    /**
     * Graceful shutdown: hand over (bounded by {@code shutdown.timeout.ms}), then close the session, the server and
     * the loop. Idempotent.
     *
     * @return true if the handover completed within the bound
     */
    public synchronized boolean shutdown() {
        if (closed) {
            return true;
        }
        long started = System.nanoTime();
        loop.enqueue(new CoordinatorEvent.HandoverRequested());
        boolean clean;
        Integer epoch = null;
        try {
            epoch = loop.handedOver().get(config.shutdownTimeoutMs(), TimeUnit.MILLISECONDS);
            clean = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            clean = false;
        } catch (ExecutionException | TimeoutException e) {
            clean = false;
        }
        long handoverMs = (System.nanoTime() - started) / 1_000_000;
        if (clean && epoch != null && epoch < 0) {
            LOG.info("resigned broker={} durationMs={} (not coordinator: nothing to hand over)", config.brokerId(),
                    handoverMs);
        } else if (clean) {
            LOG.info("handover finished broker={} epoch={} durationMs={}", config.brokerId(), epoch, handoverMs);
        } else {
            LOG.warn("handover did not finish broker={} timeoutMs={}: closing anyway (the next coordinator waits out"
                    + " the leases)", config.brokerId(), config.shutdownTimeoutMs());
        }
        closeAll();
        return clean;
    }

    /**
     * Stops at once, without a handover, as a crash would (the session is closed rather than left to expire:
     * ZooKeeper removes its ephemeral nodes immediately). For tests and for a second signal during shutdown.
     */
    public synchronized void halt() {
        if (closed) {
            return;
        }
        LOG.warn("broker halting broker={} (no handover)", config.brokerId());
        closeAll();
    }

    private void closeAll() {
        closed = true;
        adapter.close();
        server.close();
        if (metricsServer != null) {
            metricsServer.close();
        }
        loop.close();
        LOG.info("broker stopped broker={}", config.brokerId());
    }

    /** Same as {@link #shutdown()}. */
    @Override
    public void close() {
        shutdown();
    }
}
