package shepherd.cli.local;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.common.PathUtils;
import shepherd.broker.BrokerConfig;

/**
 * The settings of a {@link LocalCluster}, from {@link LocalCluster#builder()}. Every timing defaults to the broker
 * integration tests' value; each is checked by {@link BrokerConfig} when the cluster is built, so a bad one fails
 * {@link #build()} with an {@link shepherd.broker.InvalidConfigException} naming the key and the value.
 */
public final class LocalClusterBuilder {
    private static final AtomicLong CHROOTS = new AtomicLong();

    private int brokers = 3;
    private long sessionTimeoutMs = 3_000;
    private long messageDelayMaxMs = 100;
    private long leaseSafetyMarginMs = 50;
    private long rebalanceStopTimeoutMs = 500;
    private long rebalanceStartTimeoutMs = 1_000;
    private long requestTimeoutMs = 1_000;
    private long shutdownTimeoutMs = 10_000;
    private long handoverGraceMs = 200;
    /** Null: the brokers' own default. */
    private String groupAssignor;
    private String externalZooKeeper;
    private String chroot;

    LocalClusterBuilder() {}

    /** Number of brokers, ids {@code 1..count}; default 3. */
    public LocalClusterBuilder brokers(int count) {
        if (count < 1 || count > LocalCluster.BROKERS_MAX) {
            throw new IllegalArgumentException("brokers must be between 1 and " + LocalCluster.BROKERS_MAX
                    + ", got " + count);
        }
        this.brokers = count;
        return this;
    }

    /** {@code session.timeout.ms}; default 3000. */
    public LocalClusterBuilder sessionTimeoutMs(long ms) {
        this.sessionTimeoutMs = ms;
        return this;
    }

    /** {@code message.delay.max.ms}, D; default 100. */
    public LocalClusterBuilder messageDelayMaxMs(long ms) {
        this.messageDelayMaxMs = ms;
        return this;
    }

    /** {@code lease.safety.margin.ms}; default 50. */
    public LocalClusterBuilder leaseSafetyMarginMs(long ms) {
        this.leaseSafetyMarginMs = ms;
        return this;
    }

    /** {@code rebalance.stop.timeout.ms}; default 500. */
    public LocalClusterBuilder rebalanceStopTimeoutMs(long ms) {
        this.rebalanceStopTimeoutMs = ms;
        return this;
    }

    /** {@code rebalance.start.timeout.ms}; default 1000. */
    public LocalClusterBuilder rebalanceStartTimeoutMs(long ms) {
        this.rebalanceStartTimeoutMs = ms;
        return this;
    }

    /** {@code request.timeout.ms}; default 1000. */
    public LocalClusterBuilder requestTimeoutMs(long ms) {
        this.requestTimeoutMs = ms;
        return this;
    }

    /** {@code shutdown.timeout.ms}: how long {@link #stopBroker} waits for the handover; default 10000. */
    public LocalClusterBuilder shutdownTimeoutMs(long ms) {
        this.shutdownTimeoutMs = ms;
        return this;
    }

    /** {@code group.assignor.default}: the assignor of the groups the cluster creates; default the broker's. */
    public LocalClusterBuilder groupAssignor(String name) {
        this.groupAssignor = name;
        return this;
    }

    /** {@code handover.grace.ms}; default 200. */
    public LocalClusterBuilder handoverGraceMs(long ms) {
        this.handoverGraceMs = ms;
        return this;
    }

    /**
     * The tick an embedded server would get for this builder's session timeout: for a harness that runs the same
     * server elsewhere (a JVM of its own) and passes it as {@link #externalZooKeeper}.
     */
    public int embeddedTickMs() {
        return LocalCluster.embeddedTickMs(sessionTimeoutMs);
    }

    /**
     * Use this ZooKeeper ensemble ({@code host:port[,host:port...]}, no chroot: see {@link #chroot}) instead of
     * starting an embedded server; {@code null} goes back to the embedded one.
     */
    public LocalClusterBuilder externalZooKeeper(String hosts) {
        if (hosts != null && (hosts.isBlank() || hosts.contains("/")
                || hosts.chars().anyMatch(Character::isWhitespace))) {
            throw new IllegalArgumentException("external ZooKeeper must be host:port[,host:port...] without"
                    + " spaces or a chroot (set the chroot with chroot(...)), got '" + hosts + "'");
        }
        this.externalZooKeeper = hosts;
        return this;
    }

    /**
     * The chroot under which the cluster keeps its tree, created if missing (with its ancestors); {@code "/"} for
     * the server's root. Default: a fresh {@code /shepherd-local-<pid>-<n>-<millis>} per built cluster, so
     * clusters sharing a ZooKeeper never see each other.
     */
    public LocalClusterBuilder chroot(String chroot) {
        if (chroot != null && !chroot.equals("/")) {
            try {
                PathUtils.validatePath(chroot);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("chroot must be an absolute ZooKeeper path not ending in '/',"
                        + " got '" + chroot + "': " + e.getMessage(), e);
            }
        }
        this.chroot = chroot;
        return this;
    }

    /**
     * A cluster with these settings, not yet started.
     *
     * @throws shepherd.broker.InvalidConfigException naming the key and value of a timing the broker refuses
     */
    public LocalCluster build() {
        Map<String, String> timings = new LinkedHashMap<>();
        timings.put(BrokerConfig.SESSION_TIMEOUT_MS, Long.toString(sessionTimeoutMs));
        timings.put(BrokerConfig.MESSAGE_DELAY_MAX_MS, Long.toString(messageDelayMaxMs));
        timings.put(BrokerConfig.LEASE_SAFETY_MARGIN_MS, Long.toString(leaseSafetyMarginMs));
        timings.put(BrokerConfig.REBALANCE_STOP_TIMEOUT_MS, Long.toString(rebalanceStopTimeoutMs));
        timings.put(BrokerConfig.REBALANCE_START_TIMEOUT_MS, Long.toString(rebalanceStartTimeoutMs));
        timings.put(BrokerConfig.REQUEST_TIMEOUT_MS, Long.toString(requestTimeoutMs));
        timings.put(BrokerConfig.SHUTDOWN_TIMEOUT_MS, Long.toString(shutdownTimeoutMs));
        timings.put(BrokerConfig.HANDOVER_GRACE_MS, Long.toString(handoverGraceMs));
        if (groupAssignor != null) {
            timings.put(BrokerConfig.GROUP_ASSIGNOR_DEFAULT, groupAssignor);
        }
        // In-process brokers share one JIT: whichever coordinates first warms the code for all of them.
        timings.put(BrokerConfig.WARMUP_MS, "0");
        String root = chroot != null ? chroot
                : "/shepherd-local-" + ProcessHandle.current().pid() + "-" + CHROOTS.incrementAndGet() + "-"
                        + System.currentTimeMillis();
        ClusterSettings settings = new ClusterSettings(brokers, Map.copyOf(timings),
                Optional.ofNullable(externalZooKeeper), root);
        // Fail here, naming the key, rather than in start() with ZooKeeper already running.
        settings.brokerConfig(1, Optional.ofNullable(externalZooKeeper).orElse(LocalCluster.HOST + ":2181")
                + settings.chrootSuffix());
        return new LocalCluster(settings);
    }

    /** {@code build().start()}. */
    public LocalCluster start() {
        return build().start();
    }
}
