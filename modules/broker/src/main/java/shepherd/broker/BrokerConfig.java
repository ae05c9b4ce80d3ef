package shepherd.broker;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.StringJoiner;
import shepherd.broker.spi.TestSupport;
import shepherd.coordination.CoordinatorConfig;
import shepherd.coordination.GroupAssignors;
import shepherd.coordination.assign.Assignors;
import shepherd.transport.TransportConfig;

/**
 * Everything a broker needs to start, validated up front: a broker that would fail an hour later because its
 * session timeout leaves no time to command should refuse to start instead, naming the key. Keys and defaults are
 * listed in {@code BROKER-CONFIG.md}; {@link #fromProperties} reads a file's properties, {@link #withOverrides}
 * applies command-line flags on top, and both reject unknown keys (a typo must not silently fall back to a default).
 *
 * <p>Only the ping-independent coordinator settings are here: ping interval and retries are each consumer's own
 * choice, carried by its Register.
 *
 * @param brokerId                this broker's id, the name of {@code /brokers/ids/[id]}
 * @param listenHost              address the transport server binds ({@code 0.0.0.0}: every interface)
 * @param listenPort              port it binds; 0 picks a free one (tests)
 * @param advertisedHost          host consumers are told to connect to; empty: {@code listenHost}, or this machine's
 *                                name when that is a wildcard
 * @param advertisedPort          port consumers are told; 0: the bound port
 * @param zookeeperConnect        {@code host:port[,host:port…][/chroot]}; the chroot must exist
 * @param sessionTimeoutMs        requested ZooKeeper session timeout (the server may clamp it to its tick bounds)
 * @param rebalanceStopTimeoutMs  how long a rebalance waits for StopResponses before it retries
 * @param rebalanceStartTimeoutMs how long a rebalance waits for StartResponses before it ends with {@code false}
 * @param leaseSafetyMarginMs     added to every lease deadline the coordinator waits out, and subtracted from the
 *                                live-session bound
 * @param messageDelayMaxMs       D: the longest one-way delay of a message that is delivered at all
 * @param clockDriftPpm           ρ × 10⁶: how far any clock may drift from real time
 * @param frameBytesMax           largest protocol frame accepted or sent, size prefix included
 * @param requestTimeoutMs        how long a Ping, Stop or Start waits for its answer on the wire
 * @param shutdownTimeoutMs       how long {@link Broker#shutdown()} waits for a graceful handover
 * @param handoverGraceMs         after a clean handover, how long the next coordinator gives the recorded members
 *                                to re-register before its first rebalance (it skips the lease wait); also how
 *                                long a coordinator that handed over keeps its members until the next one is known
 * @param warmupMs                CPU time budget, at start, for running the coordinator's code on private state
 *                                ({@link Warmup}), so that a standby's first takeover is not its JVM's first run of
 *                                that code; 0: none
 * @param metricsHost             address the metrics HTTP server binds; empty: {@code listenHost}
 * @param metricsPort             port of the metrics HTTP server ({@code GET /metrics}); {@link #METRICS_OFF}: no
 *                                server; 0 picks a free port (tests)
 * @param fencing                 true (always, in production): epoch bump, fenced writes, live-session bound and
 *                                post-election lease wait. False only in fault-injection test builds
 *                                ({@code test.fencing=disabled}), refused unless a {@link TestSupport} provider
 *                                permits it: the chaos suite's negative control
 * @param assignors               {@code group.assignor.default} and {@code group.assignor.overrides}: the assignor of
 *                                a group this coordinator creates, and of the groups named, whatever their node says
 *                                (docs/assignors.md); set them alike on every broker, or a failover changes them
 */
public record BrokerConfig(
        int brokerId,
        String listenHost,
        int listenPort,
        String advertisedHost,
        int advertisedPort,
        String zookeeperConnect,
        long sessionTimeoutMs,
        long rebalanceStopTimeoutMs,
        long rebalanceStartTimeoutMs,
        long leaseSafetyMarginMs,
        long messageDelayMaxMs,
        long clockDriftPpm,
        int frameBytesMax,
        long requestTimeoutMs,
        long shutdownTimeoutMs,
        long handoverGraceMs,
        long warmupMs,
        String metricsHost,
        int metricsPort,
        boolean fencing,
        GroupAssignors assignors) {

    public static final String BROKER_ID = "broker.id";
    public static final String LISTEN_HOST = "listen.host";
    public static final String LISTEN_PORT = "listen.port";
    public static final String ADVERTISED_HOST = "advertised.host";
    public static final String ADVERTISED_PORT = "advertised.port";
    public static final String ZOOKEEPER_CONNECT = "zookeeper.connect";
    public static final String SESSION_TIMEOUT_MS = "session.timeout.ms";
    public static final String REBALANCE_STOP_TIMEOUT_MS = "rebalance.stop.timeout.ms";
    public static final String REBALANCE_START_TIMEOUT_MS = "rebalance.start.timeout.ms";
    public static final String LEASE_SAFETY_MARGIN_MS = "lease.safety.margin.ms";
    public static final String MESSAGE_DELAY_MAX_MS = "message.delay.max.ms";
    public static final String CLOCK_DRIFT_PPM = "clock.drift.ppm";
    public static final String FRAME_BYTES_MAX = "frame.bytes.max";
    public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
    public static final String SHUTDOWN_TIMEOUT_MS = "shutdown.timeout.ms";
    public static final String HANDOVER_GRACE_MS = "handover.grace.ms";
    public static final String WARMUP_MS = "warmup.ms";
    public static final String METRICS_HOST = "metrics.host";
    public static final String METRICS_PORT = "metrics.port";
    /** {@code enabled} (default) or {@code disabled}; the latter in fault-injection test builds only. */
    public static final String TEST_FENCING = "test.fencing";
    /** The assignor of a group created by its first registration: {@code range}, {@code roundrobin}, {@code sticky}. */
    public static final String GROUP_ASSIGNOR_DEFAULT = "group.assignor.default";
    /** {@code group=assignor[,group=assignor…]}: groups that use this assignor, whatever their node records. */
    public static final String GROUP_ASSIGNOR_OVERRIDES = "group.assignor.overrides";
    static final String FENCING_ENABLED = "enabled";
    static final String FENCING_DISABLED = "disabled";

    /** {@link #metricsPort()} when no metrics server is wanted (the key is absent or empty). */
    public static final int METRICS_OFF = -1;
    /** The conventional choice for {@code metrics.port}, documented in docs/broker.md. */
    public static final int CONVENTIONAL_METRICS_PORT = 9404;

    /** Every key this class reads; any other key is refused. */
    public static final Set<String> KEYS = Set.of(BROKER_ID, LISTEN_HOST, LISTEN_PORT, ADVERTISED_HOST,
            ADVERTISED_PORT, ZOOKEEPER_CONNECT, SESSION_TIMEOUT_MS, REBALANCE_STOP_TIMEOUT_MS,
            REBALANCE_START_TIMEOUT_MS, LEASE_SAFETY_MARGIN_MS, MESSAGE_DELAY_MAX_MS, CLOCK_DRIFT_PPM, FRAME_BYTES_MAX,
            REQUEST_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS, HANDOVER_GRACE_MS, WARMUP_MS, METRICS_HOST, METRICS_PORT,
            TEST_FENCING, GROUP_ASSIGNOR_DEFAULT, GROUP_ASSIGNOR_OVERRIDES);

    static final String DEFAULT_LISTEN_HOST = "0.0.0.0";
    static final int DEFAULT_LISTEN_PORT = 9092;
    static final String DEFAULT_ZOOKEEPER_CONNECT = "127.0.0.1:2181";
    static final long DEFAULT_SESSION_TIMEOUT_MS = 6_000;
    static final long DEFAULT_REBALANCE_STOP_TIMEOUT_MS = 2_000;
    static final long DEFAULT_REBALANCE_START_TIMEOUT_MS = 5_000;
    static final long DEFAULT_LEASE_SAFETY_MARGIN_MS = 100;
    static final long DEFAULT_MESSAGE_DELAY_MAX_MS = 500;
    static final long DEFAULT_CLOCK_DRIFT_PPM = 1_000;
    static final int DEFAULT_FRAME_BYTES_MAX = 1 << 20;
    static final long DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
    static final long DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;
    static final long DEFAULT_HANDOVER_GRACE_MS = 1_000;
    static final long DEFAULT_WARMUP_MS = 1_000;

    public BrokerConfig {
        range(BROKER_ID, brokerId, 0, Integer.MAX_VALUE);
        notBlank(LISTEN_HOST, listenHost);
        range(LISTEN_PORT, listenPort, 0, 65_535);
        Objects.requireNonNull(advertisedHost, "advertisedHost (empty for the default)");
        range(ADVERTISED_PORT, advertisedPort, 0, 65_535);
        validateConnectString(zookeeperConnect);
        range(SESSION_TIMEOUT_MS, sessionTimeoutMs, 1_000, 600_000);
        range(REBALANCE_STOP_TIMEOUT_MS, rebalanceStopTimeoutMs, 10, 600_000);
        range(REBALANCE_START_TIMEOUT_MS, rebalanceStartTimeoutMs, 10, 600_000);
        range(LEASE_SAFETY_MARGIN_MS, leaseSafetyMarginMs, 0, 60_000);
        range(MESSAGE_DELAY_MAX_MS, messageDelayMaxMs, 0, 60_000);
        range(CLOCK_DRIFT_PPM, clockDriftPpm, 0, CoordinatorConfig.CLOCK_DRIFT_PPM_MAX);
        range(FRAME_BYTES_MAX, frameBytesMax, 32, 64 << 20);
        range(REQUEST_TIMEOUT_MS, requestTimeoutMs, 1, 600_000);
        range(SHUTDOWN_TIMEOUT_MS, shutdownTimeoutMs, 0, 600_000);
        range(HANDOVER_GRACE_MS, handoverGraceMs, 0, 600_000);
        range(WARMUP_MS, warmupMs, 0, 60_000);
        Objects.requireNonNull(metricsHost, "metricsHost (empty for the default)");
        if (metricsPort != METRICS_OFF) {
            metricsPortRange(Integer.toString(metricsPort), metricsPort);
        }
        // The coordinator commands only while now < lastAck + T(1−ρ)/(1+ρ) − margin and refreshes lastAck every
        // T/3: a margin eating most of T would leave a broker that wins elections but can never command.
        if (leaseSafetyMarginMs >= sessionTimeoutMs / 3) {
            throw new InvalidConfigException(LEASE_SAFETY_MARGIN_MS, Long.toString(leaseSafetyMarginMs),
                    LEASE_SAFETY_MARGIN_MS + " must be below " + SESSION_TIMEOUT_MS + " / 3 (" + sessionTimeoutMs / 3
                            + "), got " + leaseSafetyMarginMs);
        }
        if (!fencing) {
            throwIfFencingOffNotPermitted(testSupportProviders());
        }
        Objects.requireNonNull(assignors, "assignors (GroupAssignors.DEFAULT for the default)");
    }

    /** The defaults for a broker with this id on this ZooKeeper ensemble. */
    public static BrokerConfig defaults(int brokerId, String zookeeperConnect) {
        return new BrokerConfig(brokerId, DEFAULT_LISTEN_HOST, DEFAULT_LISTEN_PORT, "", 0, zookeeperConnect,
                DEFAULT_SESSION_TIMEOUT_MS, DEFAULT_REBALANCE_STOP_TIMEOUT_MS, DEFAULT_REBALANCE_START_TIMEOUT_MS,
                DEFAULT_LEASE_SAFETY_MARGIN_MS, DEFAULT_MESSAGE_DELAY_MAX_MS, DEFAULT_CLOCK_DRIFT_PPM,
                DEFAULT_FRAME_BYTES_MAX, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_SHUTDOWN_TIMEOUT_MS,
                DEFAULT_HANDOVER_GRACE_MS, DEFAULT_WARMUP_MS, "", METRICS_OFF, true, GroupAssignors.DEFAULT);
    }

    /** True if the broker serves {@code GET /metrics}. */
    public boolean metricsEnabled() {
        return metricsPort != METRICS_OFF;
    }

    /** The address the metrics server binds: {@code metrics.host}, or {@code listen.host} when that is empty. */
    public String metricsBindHost() {
        return metricsHost.isEmpty() ? listenHost : metricsHost;
    }

    /**
     * Reads a broker's properties; {@code broker.id} is required, every other key has a default.
     *
     * @throws InvalidConfigException naming the first key that is unknown, missing, malformed or out of range
     */
    public static BrokerConfig fromProperties(Properties properties) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String name : properties.stringPropertyNames()) {
            values.put(name, properties.getProperty(name));
        }
        return fromMap(values);
    }

    /** This configuration with {@code overrides} (key → value, e.g. from command-line flags) applied on top. */
    public BrokerConfig withOverrides(Map<String, String> overrides) {
        Map<String, String> values = toMap();
        values.putAll(overrides);
        return fromMap(values);
    }

    /** Every key with its value, as {@link #fromProperties} reads them back. */
    public Properties toProperties() {
        Properties p = new Properties();
        p.putAll(toMap());
        return p;
    }

    /** The coordinator core's settings: ours, plus the core's defaults for what is not configurable here. */
    public CoordinatorConfig coordinatorConfig() {
        CoordinatorConfig d = CoordinatorConfig.defaults(brokerId, sessionTimeoutMs);
        return new CoordinatorConfig(brokerId, sessionTimeoutMs, clockDriftPpm, messageDelayMaxMs, leaseSafetyMarginMs,
                rebalanceStopTimeoutMs, rebalanceStartTimeoutMs, d.barrierMissesMax(), d.retryBackoffInitialMs(),
                d.retryBackoffMaxMs(), handoverGraceMs, d.zkRetryMs(), assignors);
    }

    /** The transport's limits: ours, plus the transport's defaults. */
    public TransportConfig transportConfig() {
        return TransportConfig.defaults().withFrameBytesMax(frameBytesMax).withRequestTimeoutMs(requestTimeoutMs);
    }

    private Map<String, String> toMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(BROKER_ID, Integer.toString(brokerId));
        m.put(LISTEN_HOST, listenHost);
        m.put(LISTEN_PORT, Integer.toString(listenPort));
        if (!advertisedHost.isEmpty()) {
            m.put(ADVERTISED_HOST, advertisedHost);
        }
        m.put(ADVERTISED_PORT, Integer.toString(advertisedPort));
        m.put(ZOOKEEPER_CONNECT, zookeeperConnect);
        m.put(SESSION_TIMEOUT_MS, Long.toString(sessionTimeoutMs));
        m.put(REBALANCE_STOP_TIMEOUT_MS, Long.toString(rebalanceStopTimeoutMs));
        m.put(REBALANCE_START_TIMEOUT_MS, Long.toString(rebalanceStartTimeoutMs));
        m.put(LEASE_SAFETY_MARGIN_MS, Long.toString(leaseSafetyMarginMs));
        m.put(MESSAGE_DELAY_MAX_MS, Long.toString(messageDelayMaxMs));
        m.put(CLOCK_DRIFT_PPM, Long.toString(clockDriftPpm));
        m.put(FRAME_BYTES_MAX, Integer.toString(frameBytesMax));
        m.put(REQUEST_TIMEOUT_MS, Long.toString(requestTimeoutMs));
        m.put(SHUTDOWN_TIMEOUT_MS, Long.toString(shutdownTimeoutMs));
        m.put(HANDOVER_GRACE_MS, Long.toString(handoverGraceMs));
        m.put(WARMUP_MS, Long.toString(warmupMs));
        if (!metricsHost.isEmpty()) {
            m.put(METRICS_HOST, metricsHost);
        }
        if (metricsPort != METRICS_OFF) {
            m.put(METRICS_PORT, Integer.toString(metricsPort));
        }
        if (!fencing) {
            m.put(TEST_FENCING, FENCING_DISABLED); // the default stays out: a production file never names it
        }
        m.put(GROUP_ASSIGNOR_DEFAULT, assignors.defaultName());
        if (!assignors.byGroup().isEmpty()) {
            StringJoiner overrides = new StringJoiner(",");
            assignors.byGroup().forEach((group, name) -> overrides.add(group + "=" + name));
            m.put(GROUP_ASSIGNOR_OVERRIDES, overrides.toString());
        }
        return m;
    }

    private static BrokerConfig fromMap(Map<String, String> values) {
        for (Map.Entry<String, String> e : values.entrySet()) {
            if (!KEYS.contains(e.getKey())) {
                throw new InvalidConfigException(e.getKey(), e.getValue(), "unknown key " + e.getKey()
                        + " (value '" + e.getValue() + "'); known keys: " + new java.util.TreeSet<>(KEYS));
            }
        }
        String id = values.get(BROKER_ID);
        if (id == null || id.isBlank()) {
            throw new InvalidConfigException(BROKER_ID, id, BROKER_ID + " is required (an integer between 0 and "
                    + Integer.MAX_VALUE + ")");
        }
        return new BrokerConfig(
                (int) parse(values, BROKER_ID, 0, 0, Integer.MAX_VALUE),
                string(values, LISTEN_HOST, DEFAULT_LISTEN_HOST),
                (int) parse(values, LISTEN_PORT, DEFAULT_LISTEN_PORT, 0, 65_535),
                string(values, ADVERTISED_HOST, ""),
                (int) parse(values, ADVERTISED_PORT, 0, 0, 65_535),
                string(values, ZOOKEEPER_CONNECT, DEFAULT_ZOOKEEPER_CONNECT),
                parse(values, SESSION_TIMEOUT_MS, DEFAULT_SESSION_TIMEOUT_MS, 1_000, 600_000),
                parse(values, REBALANCE_STOP_TIMEOUT_MS, DEFAULT_REBALANCE_STOP_TIMEOUT_MS, 10, 600_000),
                parse(values, REBALANCE_START_TIMEOUT_MS, DEFAULT_REBALANCE_START_TIMEOUT_MS, 10, 600_000),
                parse(values, LEASE_SAFETY_MARGIN_MS, DEFAULT_LEASE_SAFETY_MARGIN_MS, 0, 60_000),
                parse(values, MESSAGE_DELAY_MAX_MS, DEFAULT_MESSAGE_DELAY_MAX_MS, 0, 60_000),
                parse(values, CLOCK_DRIFT_PPM, DEFAULT_CLOCK_DRIFT_PPM, 0, CoordinatorConfig.CLOCK_DRIFT_PPM_MAX),
                (int) parse(values, FRAME_BYTES_MAX, DEFAULT_FRAME_BYTES_MAX, 32, 64 << 20),
                parse(values, REQUEST_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, 1, 600_000),
                parse(values, SHUTDOWN_TIMEOUT_MS, DEFAULT_SHUTDOWN_TIMEOUT_MS, 0, 600_000),
                parse(values, HANDOVER_GRACE_MS, DEFAULT_HANDOVER_GRACE_MS, 0, 600_000),
                parse(values, WARMUP_MS, DEFAULT_WARMUP_MS, 0, 60_000),
                string(values, METRICS_HOST, ""),
                metricsPort(values.get(METRICS_PORT)),
                fencing(values.get(TEST_FENCING)),
                assignors(values.get(GROUP_ASSIGNOR_DEFAULT), values.get(GROUP_ASSIGNOR_OVERRIDES)));
    }

    private static GroupAssignors assignors(String rawDefault, String rawOverrides) {
        String defaultName = rawDefault == null ? GroupAssignors.DEFAULT.defaultName() : rawDefault.trim();
        try {
            Assignors.byName(defaultName); // checked alone first, so an unknown one is blamed on its own key
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigException(GROUP_ASSIGNOR_DEFAULT, rawDefault, GROUP_ASSIGNOR_DEFAULT + ": "
                    + e.getMessage());
        }
        Map<String, String> byGroup = new LinkedHashMap<>();
        String expected = " (expected group=assignor[,group=assignor...])";
        if (rawOverrides != null && !rawOverrides.isBlank()) {
            for (String entry : rawOverrides.split(",", -1)) {
                int eq = entry.indexOf('=');
                String group = eq < 0 ? "" : entry.substring(0, eq).trim();
                String name = eq < 0 ? "" : entry.substring(eq + 1).trim();
                if (group.isEmpty() || name.isEmpty()) {
                    throw new InvalidConfigException(GROUP_ASSIGNOR_OVERRIDES, rawOverrides, GROUP_ASSIGNOR_OVERRIDES
                            + " has a malformed entry '" + entry.trim() + "'" + expected + ", got '" + rawOverrides
                            + "'");
                }
                if (byGroup.putIfAbsent(group, name) != null) {
                    throw new InvalidConfigException(GROUP_ASSIGNOR_OVERRIDES, rawOverrides, GROUP_ASSIGNOR_OVERRIDES
                            + " names group '" + group + "' twice, got '" + rawOverrides + "'");
                }
            }
        }
        try {
            return new GroupAssignors(defaultName, byGroup);
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigException(GROUP_ASSIGNOR_OVERRIDES, rawOverrides, GROUP_ASSIGNOR_OVERRIDES + ": "
                    + e.getMessage() + ", got '" + rawOverrides + "'");
        }
    }

    private static boolean fencing(String raw) {
        String value = raw == null ? FENCING_ENABLED : raw.trim();
        if (value.equals(FENCING_ENABLED) || value.equals(FENCING_DISABLED)) {
            return value.equals(FENCING_ENABLED);
        }
        throw new InvalidConfigException(TEST_FENCING, raw, TEST_FENCING + " must be '" + FENCING_ENABLED + "' or '"
                + FENCING_DISABLED + "' (test builds only), got '" + raw + "'");
    }

    /**
     * {@code test.fencing=disabled} turns a broker into the seed's unfenced coordinator, which loses exclusive
     * ownership after a pause beyond the session timeout. A production broker must never run so by mistake (a stray
     * line in a properties file), so the setting needs a second, deliberate act: a fault-injection test build
     * putting a {@link TestSupport} provider that permits it where the broker's {@link ServiceLoader} finds it. The
     * runtime image ships none.
     */
    static void throwIfFencingOffNotPermitted(Iterable<TestSupport> providers) {
        String found;
        try {
            for (TestSupport provider : providers) {
                if (provider.permitsFencingDisabled()) {
                    return;
                }
            }
            found = "no " + TestSupport.class.getName() + " provider permitting it was found";
        } catch (ServiceConfigurationError e) {
            found = "the " + TestSupport.class.getName() + " providers could not be loaded (" + e.getMessage() + ")";
        }
        throw new InvalidConfigException(TEST_FENCING, FENCING_DISABLED, TEST_FENCING + "=" + FENCING_DISABLED
                + " is available only in fault-injection test builds: " + found + " (a production broker always"
                + " fences; the runtime image ships no provider)");
    }

    private static Iterable<TestSupport> testSupportProviders() {
        return ServiceLoader.load(TestSupport.class);
    }

    /** Absent or empty: no metrics server. Otherwise 0 – 65535 ({@code -1} is not a way to say "off" in a file). */
    private static int metricsPort(String raw) {
        if (raw == null || raw.isBlank()) {
            return METRICS_OFF;
        }
        long port;
        try {
            port = Long.parseLong(raw.trim());
        } catch (NumberFormatException e) {
            port = Long.MIN_VALUE;
        }
        metricsPortRange(raw, port);
        return (int) port;
    }

    private static void metricsPortRange(String raw, long port) {
        if (port < 0 || port > 65_535) {
            throw new InvalidConfigException(METRICS_PORT, raw, METRICS_PORT + " must be an integer between 0 and"
                    + " 65535 (0: a free port; leave it out for no metrics server; " + CONVENTIONAL_METRICS_PORT
                    + " is the usual choice), got '" + raw + "'");
        }
    }

    private static String string(Map<String, String> values, String key, String dflt) {
        String v = values.get(key);
        return v == null ? dflt : v.trim();
    }

    private static long parse(Map<String, String> values, String key, long dflt, long min, long max) {
        String raw = values.get(key);
        if (raw == null) {
            return dflt;
        }
        try {
            return Long.parseLong(raw.trim());
        } catch (NumberFormatException e) {
            throw new InvalidConfigException(key, raw, key + " must be an integer between " + min + " and " + max
                    + ", got '" + raw + "'");
        }
    }

    private static void range(String key, long value, long min, long max) {
        if (value < min || value > max) {
            throw new InvalidConfigException(key, Long.toString(value),
                    key + " must be between " + min + " and " + max + ", got " + value);
        }
    }

    private static void notBlank(String key, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidConfigException(key, value, key + " must not be empty, got '" + value + "'");
        }
    }

    /** {@code host[:port][,host[:port]…][/chroot]}, as the ZooKeeper client takes it. */
    private static void validateConnectString(String connect) {
        String key = ZOOKEEPER_CONNECT;
        String expected = " (expected host:port[,host:port...][/chroot])";
        if (connect == null || connect.isBlank()) {
            throw new InvalidConfigException(key, connect, key + " must not be empty" + expected + ", got '"
                    + connect + "'");
        }
        int slash = connect.indexOf('/');
        String hosts = slash < 0 ? connect : connect.substring(0, slash);
        String chroot = slash < 0 ? "" : connect.substring(slash);
        for (String server : hosts.split(",", -1)) {
            int colon = server.lastIndexOf(':');
            String host = colon < 0 ? server : server.substring(0, colon);
            if (host.isBlank() || host.contains(" ")) {
                throw new InvalidConfigException(key, connect, key + " has an empty or malformed server '" + server
                        + "'" + expected + ", got '" + connect + "'");
            }
            if (colon >= 0) {
                String port = server.substring(colon + 1);
                long p;
                try {
                    p = Long.parseLong(port);
                } catch (NumberFormatException e) {
                    p = -1;
                }
                if (p < 1 || p > 65_535) {
                    throw new InvalidConfigException(key, connect, key + " port of server '" + server
                            + "' must be between 1 and 65535" + expected + ", got '" + connect + "'");
                }
            }
        }
        if (!chroot.isEmpty() && (chroot.endsWith("/") || chroot.contains("//"))) {
            throw new InvalidConfigException(key, connect, key + " chroot '" + chroot
                    + "' must start with '/', not end with '/' and have no empty segment" + expected + ", got '"
                    + connect + "'");
        }
    }
}
