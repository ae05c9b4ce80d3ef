package shepherd.cli.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.zookeeper.common.PathUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.broker.Broker;
import shepherd.broker.BrokerConfig;
import shepherd.broker.BrokerStatus;
import shepherd.cli.admin.ZkAdmin;
import shepherd.cli.admin.ZkAdmin.TopicWrite;
import shepherd.coordination.assign.InvalidIdException;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.zookeeper.EmbeddedZooKeeper;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;
import shepherd.zookeeper.ZnodeFormatException;

/**
 * A whole Shepherd cluster inside this JVM: brokers {@code 1..n} on {@code 127.0.0.1} with ephemeral ports, a
 * ZooKeeper (an {@link EmbeddedZooKeeper} it starts itself, or an external ensemble) under a chroot of its own, and an
 * admin ZooKeeper handle doing what the {@code shepherd topics} / {@code offsets} tools do. For the integration tests
 * of the consumer library and {@code shepherd demo}; never for production (one embedded server is no quorum).
 *
 * <pre>{@code
 * try (LocalCluster cluster = LocalCluster.builder().brokers(3).start()) {
 *     cluster.createTopic("orders", 2);                  // partitions 1-0, 1-1, 2-0, 2-1, 3-0, 3-1
 *     int coordinator = cluster.awaitCoordinator(Duration.ofSeconds(10));
 *     ... consumers bootstrap from cluster.bootstrap() ...
 *     cluster.stopBroker(coordinator);                   // graceful: handover
 *     cluster.awaitCoordinator(Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p>The default timings are the short ones of the broker's integration tests (DESIGN §8): a 3 s ZooKeeper session,
 * D = 100 ms, so a failover takes seconds rather than the production defaults' tens of seconds.
 *
 * <p><b>Threads.</b> Lifecycle calls ({@link #start}, {@link #stopBroker}, {@link #haltBroker},
 * {@link #restartBroker}, {@link #close}) are serialized; the queries ({@link #bootstrap}, {@link #coordinatorId},
 * {@link #awaitCoordinator}, the ZooKeeper reads) may run from any thread meanwhile and see the brokers live at that
 * moment.
 */
public final class LocalCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);

    /** The largest cluster a builder accepts: every broker is a handful of threads in this JVM. */
    public static final int BROKERS_MAX = 64;
    /** The address every broker binds and advertises. */
    public static final String HOST = "127.0.0.1";
    /** Polling interval of {@link #awaitCoordinator}: a condition checked against a deadline, not a wait for time. */
    private static final long POLL_INTERVAL_MS = 20;
    /** The embedded server's tick is at least this; sessions may last 2 – 20 ticks (ZooKeeper clamps them). */
    private static final int EMBEDDED_TICK_MIN_MS = 200;
    private static final AtomicLong CHROOTS = new AtomicLong();

    private final Settings settings;
    /** The running brokers by id. Written under {@code this}, read from any thread. */
    private final ConcurrentSkipListMap<Integer, Broker> live = new ConcurrentSkipListMap<>();
    private volatile State state = State.NEW;
    private volatile String zookeeperHosts;
    private volatile ZkAdmin admin;
    private EmbeddedZooKeeper embedded; // guarded by this

    private LocalCluster(Settings settings) {
        this.settings = settings;
    }

    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------ lifecycle

    /**
     * Starts ZooKeeper (if embedded), creates the chroot, opens the admin handle and starts brokers {@code 1..n},
     * each returning once registered. On failure everything started so far is closed again.
     *
     * @return this cluster
     * @throws IllegalStateException if already started or closed, or if ZooKeeper or a broker fails to come up
     */
    public synchronized LocalCluster start() {
        state = state.transitionTo(State.STARTED);
        try {
            zookeeperHosts = settings.externalZooKeeper().orElseGet(this::startEmbeddedZooKeeper);
            ZkAdmin.createChroot(zookeeperHosts, settings.chroot());
            admin = ZkAdmin.open(zookeeperConnectString());
            for (int id = 1; id <= settings.brokers(); id++) {
                live.put(id, startBroker(id));
            }
        } catch (RuntimeException e) {
            closeAfterFailedStart(e);
            throw e;
        }
        LOG.info("local cluster started zookeeper={} embedded={} brokers={} bootstrap={}", zookeeperConnectString(),
                embedded != null, settings.brokers(), bootstrapString());
        return this;
    }

    private String startEmbeddedZooKeeper() {
        try {
            embedded = EmbeddedZooKeeper.start(Files.createTempDirectory("shepherd-local-zk-"), true,
                    embeddedTickMs(settings.sessionTimeoutMs()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the embedded ZooKeeper", e);
        }
        return embedded.connectString();
    }

    /**
     * A tick that lets the server grant {@code sessionTimeoutMs} unchanged: at most 20 ticks, so the tick is at least
     * 1/20 of it (a fixed 200 ms tick would silently cut a 10 s session to 4 s).
     */
    static int embeddedTickMs(long sessionTimeoutMs) {
        return (int) Math.max(EMBEDDED_TICK_MIN_MS, (sessionTimeoutMs + 19) / 20);
    }

    private Broker startBroker(int id) {
        BrokerConfig config = settings.brokerConfig(id, zookeeperConnectString());
        try {
            return Broker.start(config);
        } catch (IOException e) {
            throw new UncheckedIOException("broker " + id + " cannot bind " + HOST + ":0: " + e, e);
        }
    }

    /**
     * Graceful shutdown of one broker: if it coordinates, it stops every group, records the handover under its epoch
     * and resigns, so the next coordinator skips the lease wait; then its session closes. Bounded by the shutdown
     * timeout.
     *
     * @return true if the handover completed within the shutdown timeout (false: the next coordinator waits out the
     *         leases)
     * @throws IllegalArgumentException if {@code id} is not one of this cluster's broker ids
     * @throws IllegalStateException    if that broker is not running
     */
    public synchronized boolean stopBroker(int id) {
        Broker broker = takeLive(id, "stop");
        boolean clean = broker.shutdown();
        LOG.info("local cluster stopped broker={} handover={}", id, clean ? "clean" : "timed out");
        return clean;
    }

    /**
     * Stops one broker at once, without a handover: its sockets and threads stop and groups are left to the next
     * coordinator, which must wait out the members' leases before commanding. {@link Broker#halt()} closes the
     * broker's ZooKeeper session rather than leaving it to expire, so its ephemeral nodes (registration, election
     * node) vanish immediately and the next election starts at once.
     *
     * @throws IllegalArgumentException if {@code id} is not one of this cluster's broker ids
     * @throws IllegalStateException    if that broker is not running
     */
    public synchronized void haltBroker(int id) {
        takeLive(id, "halt").halt();
        LOG.info("local cluster halted broker={}", id);
    }

    /**
     * Starts a new {@link Broker} with the same id (and a new ephemeral port), stopping the running one gracefully
     * first if there is one.
     *
     * @return the new broker, registered in ZooKeeper
     * @throws IllegalArgumentException if {@code id} is not one of this cluster's broker ids
     */
    public synchronized Broker restartBroker(int id) {
        requireStarted("restart broker " + id);
        requireKnownBroker(id);
        if (live.containsKey(id)) {
            stopBroker(id);
        }
        Broker broker = startBroker(id);
        live.put(id, broker);
        LOG.info("local cluster restarted broker={} port={}", id, broker.port());
        return broker;
    }

    private Broker takeLive(int id, String action) {
        requireStarted(action + " broker " + id);
        requireKnownBroker(id);
        Broker broker = live.remove(id);
        if (broker == null) {
            throw new IllegalStateException("cannot " + action + " broker " + id + ": it is not running (running: "
                    + brokerIds() + ")");
        }
        return broker;
    }

    /**
     * Halts the brokers still running, closes the admin handle and stops the embedded ZooKeeper (deleting its data).
     * A chroot on an external ZooKeeper is left in place. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (state == State.CLOSED) {
            return;
        }
        state = state.transitionTo(State.CLOSED);
        RuntimeException failure = null;
        for (Integer id : List.copyOf(live.keySet())) {
            failure = attempt(failure, () -> live.remove(id).halt());
        }
        if (admin != null) {
            failure = attempt(failure, admin::close);
        }
        if (embedded != null) {
            failure = attempt(failure, embedded::close);
        }
        LOG.info("local cluster closed zookeeper={}", zookeeperHosts == null ? "(never started)"
                : zookeeperHosts + settings.chrootSuffix());
        if (failure != null) {
            throw failure;
        }
    }

    private void closeAfterFailedStart(RuntimeException cause) {
        try {
            close();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    /** Runs {@code step}; a failure is kept (the first one thrown, later ones suppressed) so every step still runs. */
    private static RuntimeException attempt(RuntimeException failure, Runnable step) {
        try {
            step.run();
            return failure;
        } catch (RuntimeException e) {
            if (failure == null) {
                return e;
            }
            failure.addSuppressed(e);
            return failure;
        }
    }

    // ------------------------------------------------------------------ brokers

    /** The running broker with this id. */
    public Broker broker(int id) {
        requireKnownBroker(id);
        Broker broker = live.get(id);
        if (broker == null) {
            throw new IllegalStateException("broker " + id + " is not running (running: " + brokerIds() + ")");
        }
        return broker;
    }

    /** The ids of the running brokers, ascending. */
    public List<Integer> brokerIds() {
        return List.copyOf(live.keySet());
    }

    /** The running brokers' addresses, by ascending id: what a consumer bootstraps from. */
    public List<InetSocketAddress> bootstrap() {
        return live.values().stream().map(b -> new InetSocketAddress(HOST, b.port())).toList();
    }

    /** {@link #bootstrap()} as {@code "127.0.0.1:p1,127.0.0.1:p2,..."}. */
    public String bootstrapString() {
        return live.values().stream().map(b -> HOST + ":" + b.port()).collect(Collectors.joining(","));
    }

    /**
     * The running broker whose status says it coordinates (loading, waiting out leases, active or handing over),
     * when exactly one does; empty when none does or, briefly during a change of coordinator, several do.
     */
    public OptionalInt coordinatorId() {
        List<Integer> coordinators = coordinators(statuses());
        return coordinators.size() == 1 ? OptionalInt.of(coordinators.get(0)) : OptionalInt.empty();
    }

    /**
     * Waits until exactly one running broker coordinates and returns its id.
     *
     * @throws IllegalStateException naming every broker's role and epoch if that does not happen within
     *                               {@code timeout}
     */
    public int awaitCoordinator(Duration timeout) {
        requireNonNegative(timeout);
        long timeoutNanos = saturatedNanos(timeout);
        long start = System.nanoTime();
        while (true) {
            Map<Integer, Object> statuses = statuses();
            List<Integer> coordinators = coordinators(statuses);
            if (coordinators.size() == 1) {
                return coordinators.get(0);
            }
            if (System.nanoTime() - start > timeoutNanos) {
                throw new IllegalStateException("no single coordinator among the running brokers within "
                        + timeout.toMillis() + " ms: coordinating " + coordinators + "; " + describe(statuses));
            }
            pause("waiting for a coordinator");
        }
    }

    /** Each running broker's {@link BrokerStatus}, or the exception reading it (a broker halted meanwhile). */
    private Map<Integer, Object> statuses() {
        Map<Integer, Object> statuses = new LinkedHashMap<>();
        live.forEach((id, broker) -> {
            try {
                statuses.put(id, broker.status());
            } catch (IllegalStateException e) {
                statuses.put(id, e);
            }
        });
        return statuses;
    }

    private static List<Integer> coordinators(Map<Integer, Object> statuses) {
        return statuses.entrySet().stream()
                .filter(e -> e.getValue() instanceof BrokerStatus s && s.coordinating())
                .map(Map.Entry::getKey).toList();
    }

    private static String describe(Map<Integer, Object> statuses) {
        if (statuses.isEmpty()) {
            return "no broker is running";
        }
        return statuses.entrySet().stream().map(e -> "broker " + e.getKey() + ": " + (e.getValue()
                        instanceof BrokerStatus s ? s.role() + " epoch " + s.epoch() + " groups " + s.groups().keySet()
                        : "status unreadable (" + e.getValue() + ")"))
                .collect(Collectors.joining(", "));
    }

    // ------------------------------------------------------------------ topics

    /**
     * Creates (or resizes) {@code topic} with {@code partitionsPerBroker} partitions on every broker of the cluster,
     * running or not, in one {@code multi}, so a coordinator never sees half a topic.
     *
     * @return the partition ids, {@code "<brokerId>-<n>"}, in (broker id, n) order
     * @throws IllegalArgumentException if the count is negative or too large, or the name is no path segment
     */
    public List<String> createTopic(String topic, int partitionsPerBroker) {
        requirePartitionCount(partitionsPerBroker);
        ZkPaths.topic(topic); // refuses a name that is no path segment, before anything else
        requireStarted("create topic " + topic);
        Map<Integer, Integer> counts = new LinkedHashMap<>();
        for (int id = 1; id <= settings.brokers(); id++) {
            counts.put(id, partitionsPerBroker);
        }
        admin.writeTopic(topic, counts, TopicWrite.SET);
        List<String> partitions = new ArrayList<>();
        for (int id = 1; id <= settings.brokers(); id++) {
            for (int n = 0; n < partitionsPerBroker; n++) {
                partitions.add(new PartitionId(id, n).toString());
            }
        }
        return List.copyOf(partitions);
    }

    /**
     * Writes {@code /brokers/topics/[topic]/[brokerId]} = {@code partitions}, creating the topic if needed: broker
     * {@code brokerId} then holds partitions {@code brokerId-0 .. brokerId-(partitions-1)}.
     *
     * @throws IllegalArgumentException if the broker id is unknown, the count negative or too large, or the name is
     *                                  no path segment
     */
    public void setPartitions(String topic, int brokerId, int partitions) {
        requireKnownBroker(brokerId);
        requirePartitionCount(partitions);
        ZkPaths.topicBroker(topic, brokerId); // refuses a name that is no path segment
        requireStarted("set partitions of " + topic);
        admin.writeTopic(topic, Map.of(brokerId, partitions), TopicWrite.SET);
    }

    // ------------------------------------------------------------------ groups

    /**
     * The committed offsets of {@code group} as the coordinator stored them: topic → partition → the next offset to
     * consume, sorted by topic and (broker id, n). Empty for an unknown group. Garbage (a child that is no partition
     * id, a value that does not decode) is skipped.
     */
    public Map<String, Map<String, Long>> committedOffsets(String group) {
        String offsets = ZkPaths.offsets(group);
        requireStarted("read the offsets of " + group);
        return readPartitionTree(offsets, topic -> ZkPaths.offsetsOfTopic(group, topic),
                tp -> ZkPaths.offset(group, tp), ZnodeCodec::decodeOffset);
    }

    /**
     * The partition owners of {@code group}: topic → partition → owning consumer id (the stream
     * {@code "<consumerId>-<n>"} without its number; see {@link #ownerStreams}). Empty for an unknown group; garbage
     * is skipped.
     */
    public Map<String, Map<String, String>> owners(String group) {
        return mapValues(readOwners(group), StreamId::consumerId);
    }

    /** Like {@link #owners}, with the owning stream {@code "<consumerId>-<n>"} as written in the owner node. */
    public Map<String, Map<String, String>> ownerStreams(String group) {
        return mapValues(readOwners(group), StreamId::toString);
    }

    private Map<String, Map<String, StreamId>> readOwners(String group) {
        String owners = ZkPaths.owners(group);
        requireStarted("read the owners of " + group);
        return readPartitionTree(owners, topic -> ZkPaths.ownersOfTopic(group, topic),
                tp -> ZkPaths.owner(group, tp), (path, data) -> ZnodeCodec.decodeOwner(path, data).owner());
    }

    @FunctionalInterface
    private interface Decoder<V> {
        V decode(String path, byte[] data) throws ZnodeFormatException;
    }

    /** Reads {@code base/[topic]/[partition]} nodes; a node deleted while being read is simply absent. */
    private <V> Map<String, Map<String, V>> readPartitionTree(String base, Function<String, String> topicPath,
                                                             Function<TopicPartition, String> partitionPath,
                                                             Decoder<V> decoder) {
        SortedMap<String, Map<String, V>> result = new TreeMap<>();
        for (String topic : admin.children(base)) {
            SortedMap<String, V> partitions = new TreeMap<>(Comparator.comparing(PartitionId::parse));
            for (String child : admin.children(topicPath.apply(topic))) {
                Optional<PartitionId> id = partitionId(child);
                if (id.isEmpty()) {
                    LOG.debug("skipping {}/{}/{}: not a partition id", base, topic, child);
                    continue;
                }
                String path = partitionPath.apply(new TopicPartition(topic, id.get()));
                admin.data(path).flatMap(data -> decode(decoder, path, data))
                        .ifPresent(value -> partitions.put(child, value));
            }
            if (!partitions.isEmpty()) {
                result.put(topic, Collections.unmodifiableSortedMap(partitions));
            }
        }
        return Collections.unmodifiableSortedMap(result);
    }

    private static Optional<PartitionId> partitionId(String child) {
        try {
            return Optional.of(PartitionId.parse(child));
        } catch (InvalidIdException e) {
            return Optional.empty();
        }
    }

    private static <V> Optional<V> decode(Decoder<V> decoder, String path, byte[] data) {
        try {
            return Optional.of(decoder.decode(path, data));
        } catch (ZnodeFormatException e) {
            LOG.debug("skipping {}", e.getMessage());
            return Optional.empty();
        }
    }

    private static <A, B> Map<String, Map<String, B>> mapValues(Map<String, Map<String, A>> tree, Function<A, B> f) {
        SortedMap<String, Map<String, B>> result = new TreeMap<>();
        tree.forEach((topic, partitions) -> {
            SortedMap<String, B> mapped = new TreeMap<>(Comparator.comparing(PartitionId::parse));
            partitions.forEach((p, v) -> mapped.put(p, f.apply(v)));
            result.put(topic, Collections.unmodifiableSortedMap(mapped));
        });
        return Collections.unmodifiableSortedMap(result);
    }

    // ------------------------------------------------------------------ ZooKeeper

    /** The connect string brokers use: the ZooKeeper hosts and this cluster's chroot ({@code host:port/chroot}). */
    public String zookeeperConnectString() {
        String hosts = zookeeperHosts;
        if (hosts == null) {
            throw new IllegalStateException("LocalCluster is " + state + ": ZooKeeper is known once start() ran");
        }
        return hosts + settings.chrootSuffix();
    }

    /** The chroot all of this cluster's nodes live under ({@code "/"}: the server's root). */
    public String chroot() {
        return settings.chroot();
    }

    /** The ZooKeeper session timeout every broker requests. */
    public long sessionTimeoutMs() {
        return settings.sessionTimeoutMs();
    }

    // ------------------------------------------------------------------ guards

    private void requireStarted(String action) {
        State s = state;
        if (s != State.STARTED) {
            throw new IllegalStateException("cannot " + action + ": LocalCluster is " + s
                    + (s == State.NEW ? " (call start() first)" : ""));
        }
    }

    private void requireKnownBroker(int id) {
        if (id < 1 || id > settings.brokers()) {
            throw new IllegalArgumentException("unknown broker id " + id + ": this cluster has brokers 1.."
                    + settings.brokers());
        }
    }

    private static void requirePartitionCount(int partitions) {
        if (partitions < 0 || partitions > ZnodeCodec.PARTITIONS_PER_BROKER_MAX) {
            throw new IllegalArgumentException("partitions per broker must be between 0 and "
                    + ZnodeCodec.PARTITIONS_PER_BROKER_MAX + ", got " + partitions);
        }
    }

    private static void requireNonNegative(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be a non-negative duration, got " + timeout);
        }
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static void pause(String what) {
        try {
            Thread.sleep(POLL_INTERVAL_MS); // the polling interval of a condition with a deadline
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + what, e);
        }
    }

    /** The cluster's lifecycle: started once, closed once (close also from NEW, and after a failed start). */
    private enum State {
        NEW, STARTED, CLOSED;

        State transitionTo(State to) {
            boolean legal = switch (this) {
                case NEW -> to == STARTED || to == CLOSED;
                case STARTED -> to == CLOSED;
                case CLOSED -> false;
            };
            if (!legal) {
                throw new IllegalStateException("Cannot transition from " + this + " to " + to);
            }
            return to;
        }
    }

    // ------------------------------------------------------------------ configuration

    /** What a built cluster runs with; every value already checked. */
    private record Settings(int brokers, Map<String, String> timings, Optional<String> externalZooKeeper,
                            String chroot) {

        long sessionTimeoutMs() {
            return Long.parseLong(timings.get(BrokerConfig.SESSION_TIMEOUT_MS));
        }

        String chrootSuffix() {
            return chroot.equals("/") ? "" : chroot;
        }

        BrokerConfig brokerConfig(int id, String zookeeperConnect) {
            Map<String, String> overrides = new LinkedHashMap<>(timings);
            overrides.put(BrokerConfig.LISTEN_HOST, HOST);
            overrides.put(BrokerConfig.LISTEN_PORT, "0");
            return BrokerConfig.defaults(id, zookeeperConnect).withOverrides(overrides);
        }
    }

    /**
     * Settings of a {@link LocalCluster}. Every timing defaults to the broker integration tests' value; each is
     * checked by {@link BrokerConfig} when the cluster is built, so a bad one fails {@link #build()} with an
     * {@link shepherd.broker.InvalidConfigException} naming the key and the value.
     */
    public static final class Builder {
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

        private Builder() {}

        /** Number of brokers, ids {@code 1..count}; default 3. */
        public Builder brokers(int count) {
            if (count < 1 || count > BROKERS_MAX) {
                throw new IllegalArgumentException("brokers must be between 1 and " + BROKERS_MAX + ", got " + count);
            }
            this.brokers = count;
            return this;
        }

        /** {@code session.timeout.ms}; default 3000. */
        public Builder sessionTimeoutMs(long ms) {
            this.sessionTimeoutMs = ms;
            return this;
        }

        /** {@code message.delay.max.ms}, D; default 100. */
        public Builder messageDelayMaxMs(long ms) {
            this.messageDelayMaxMs = ms;
            return this;
        }

        /** {@code lease.safety.margin.ms}; default 50. */
        public Builder leaseSafetyMarginMs(long ms) {
            this.leaseSafetyMarginMs = ms;
            return this;
        }

        /** {@code rebalance.stop.timeout.ms}; default 500. */
        public Builder rebalanceStopTimeoutMs(long ms) {
            this.rebalanceStopTimeoutMs = ms;
            return this;
        }

        /** {@code rebalance.start.timeout.ms}; default 1000. */
        public Builder rebalanceStartTimeoutMs(long ms) {
            this.rebalanceStartTimeoutMs = ms;
            return this;
        }

        /** {@code request.timeout.ms}; default 1000. */
        public Builder requestTimeoutMs(long ms) {
            this.requestTimeoutMs = ms;
            return this;
        }

        /** {@code shutdown.timeout.ms}: how long {@link #stopBroker} waits for the handover; default 10000. */
        public Builder shutdownTimeoutMs(long ms) {
            this.shutdownTimeoutMs = ms;
            return this;
        }

        /** {@code group.assignor.default}: the assignor of the groups the cluster creates; default the broker's. */
        public Builder groupAssignor(String name) {
            this.groupAssignor = name;
            return this;
        }

        /** {@code handover.grace.ms}; default 200. */
        public Builder handoverGraceMs(long ms) {
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
        public Builder externalZooKeeper(String hosts) {
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
        public Builder chroot(String chroot) {
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
            Settings settings = new Settings(brokers, Map.copyOf(timings), Optional.ofNullable(externalZooKeeper),
                    root);
            // Fail here, naming the key, rather than in start() with ZooKeeper already running.
            settings.brokerConfig(1, Optional.ofNullable(externalZooKeeper).orElse(HOST + ":2181")
                    + settings.chrootSuffix());
            return new LocalCluster(settings);
        }

        /** {@code build().start()}. */
        public LocalCluster start() {
            return build().start();
        }
    }
}
