package shepherd.broker;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

/**
 * The broker's meters, in one Prometheus registry. The event loop reports what it learns (a rebalance ended, a
 * ping was missed, a session event, a ZooKeeper answer); gauges describing the coordinator (epoch, groups, members)
 * are set from a snapshot the loop takes when a scrape asks for it, so no other thread ever reads the core. The
 * meter names and what they mean are listed in docs/broker.md ("Metrics"); the names here are Micrometer's dotted
 * ones, which the Prometheus registry writes with underscores, a unit suffix for timers and {@code _total} for
 * counters.
 *
 * <p>Thread-safe: Micrometer's meters are, and the gauges read atomics.
 */
public final class BrokerMetrics {
    public static final String REBALANCES = "shepherd.rebalances";
    public static final String REBALANCE_DURATION = "shepherd.rebalance.duration";
    public static final String GROUPS = "shepherd.groups";
    public static final String MEMBERS = "shepherd.members";
    public static final String PING_MISSES = "shepherd.ping.misses";
    public static final String CONSUMERS_FAILED = "shepherd.consumers.failed";
    public static final String COORDINATOR_EPOCH = "shepherd.coordinator.epoch";
    public static final String COORDINATING = "shepherd.coordinating";
    public static final String ZOOKEEPER_SESSION_EVENTS = "shepherd.zookeeper.session.events";
    public static final String ZOOKEEPER_OP_LATENCY = "shepherd.zookeeper.op.latency";
    public static final String MALFORMED_FRAMES = "shepherd.transport.malformed.frames";

    /** How a rebalance run ended: every member started the new generation, or it will run again. */
    public enum RebalanceOutcome {
        STABLE("stable"), RETRYING("retrying");

        private final String tag;

        RebalanceOutcome(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }
    }

    /** What happened to the ZooKeeper session (the adapter's connection-state events). */
    public enum SessionEvent {
        DISCONNECTED("disconnected"), RECONNECTED("reconnected"), EXPIRED("expired");

        private final String tag;

        SessionEvent(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }
    }

    /** The kinds of ZooKeeper request whose answer carries the time it was sent. */
    public enum ZooKeeperOp {
        ELECTION("election"), READ("read"), WRITE("write"), KEEPALIVE("keepalive");

        private final String tag;

        ZooKeeperOp(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }
    }

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<RebalanceOutcome, Counter> rebalances = new ConcurrentHashMap<>();
    private final Timer rebalanceDuration;
    private final Counter pingMisses;
    private final Counter consumersFailed;
    private final Map<SessionEvent, Counter> sessionEvents = new ConcurrentHashMap<>();
    private final Map<ZooKeeperOp, Timer> zooKeeperOps = new ConcurrentHashMap<>();
    // Gauge values, set from the loop's snapshot; held here so the registry's weak references stay alive.
    private final AtomicLong epoch = new AtomicLong(-1);
    private final AtomicLong coordinating = new AtomicLong();
    private final AtomicLong groups = new AtomicLong();
    private final AtomicLong members = new AtomicLong();
    private Object malformedFramesSource; // strong reference for the FunctionCounter

    /** @param brokerId the {@code broker} tag on every meter, so brokers sharing a JVM or a dashboard stay apart */
    public BrokerMetrics(int brokerId) {
        registry.config().commonTags("broker", Integer.toString(brokerId));
        for (RebalanceOutcome o : RebalanceOutcome.values()) {
            rebalances.put(o, Counter.builder(REBALANCES).tag("outcome", o.tag())
                    .description("Rebalance runs that ended, by outcome").register(registry));
        }
        rebalanceDuration = Timer.builder(REBALANCE_DURATION)
                .description("From a run's first assignment to its end (stable or retrying)")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry);
        pingMisses = Counter.builder(PING_MISSES)
                .description("Pings that went unanswered, or were due while the member had no connection")
                .register(registry);
        consumersFailed = Counter.builder(CONSUMERS_FAILED)
                .description("Members the coordinator removed because they failed (pings, Stop rounds, no return)")
                .register(registry);
        for (SessionEvent e : SessionEvent.values()) {
            sessionEvents.put(e, Counter.builder(ZOOKEEPER_SESSION_EVENTS).tag("event", e.tag())
                    .description("ZooKeeper session events seen by the broker").register(registry));
        }
        for (ZooKeeperOp op : ZooKeeperOp.values()) {
            zooKeeperOps.put(op, Timer.builder(ZOOKEEPER_OP_LATENCY).tag("op", op.tag())
                    .description("From sending a ZooKeeper request to the event loop handling its answer")
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(Duration.ofSeconds(30))
                    .register(registry));
        }
        Gauge.builder(COORDINATOR_EPOCH, epoch, AtomicLong::get)
                .description("The epoch this broker coordinates under, or last coordinated under; -1 if it never won")
                .register(registry);
        Gauge.builder(COORDINATING, coordinating, AtomicLong::get)
                .description("1 while this broker is the coordinator, else 0").register(registry);
        Gauge.builder(GROUPS, groups, AtomicLong::get)
                .description("Groups this broker coordinates").register(registry);
        Gauge.builder(MEMBERS, members, AtomicLong::get)
                .description("Members of the groups this broker coordinates").register(registry);
    }

    /**
     * Exports {@code source}'s count of connections closed for frames the transport could not accept. Read at
     * each scrape; {@code source} is kept strongly referenced for as long as these metrics live.
     */
    public synchronized <T> void bindMalformedFrames(T source, ToLongFunction<T> count) {
        if (malformedFramesSource != null) {
            throw new IllegalStateException("malformed frames are already bound to " + malformedFramesSource);
        }
        malformedFramesSource = source;
        FunctionCounter.builder(MALFORMED_FRAMES, source, s -> count.applyAsLong(s))
                .description("Connections closed because the peer sent a malformed, oversized or conflicting frame")
                .register(registry);
    }

    public void rebalanceEnded(RebalanceOutcome outcome, long durationMs) {
        rebalances.get(outcome).increment();
        rebalanceDuration.record(Math.max(0, durationMs), TimeUnit.MILLISECONDS);
    }

    public void pingMissed() {
        pingMisses.increment();
    }

    public void consumerFailed() {
        consumersFailed.increment();
    }

    public void sessionEvent(SessionEvent event) {
        sessionEvents.get(event).increment();
    }

    public void zooKeeperAnswered(ZooKeeperOp op, long latencyMs) {
        zooKeeperOps.get(op).record(Math.max(0, latencyMs), TimeUnit.MILLISECONDS);
    }

    /** The coordinator's state, from a snapshot taken on the loop thread. */
    public void coordinatorState(int epoch, boolean coordinating, int groups, int members) {
        this.epoch.set(epoch);
        this.coordinating.set(coordinating ? 1 : 0);
        this.groups.set(groups);
        this.members.set(members);
    }

    /** Every meter in the Prometheus text exposition format 0.0.4. */
    public String scrape() {
        return registry.scrape();
    }

    /** For tests: the registry itself. */
    PrometheusMeterRegistry registry() {
        return registry;
    }
}
