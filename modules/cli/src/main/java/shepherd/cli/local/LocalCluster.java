package shepherd.cli.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.broker.Broker;
import shepherd.broker.BrokerConfig;
import shepherd.cli.admin.ZkAdmin;
import shepherd.cli.admin.ZkAdmin.TopicWrite;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.zookeeper.EmbeddedZooKeeper;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;

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

    private final ClusterSettings settings;
    /** The running brokers by id. Written under {@code this}, read from any thread. */
    private final ConcurrentSkipListMap<Integer, Broker> live = new ConcurrentSkipListMap<>();
    private volatile State state = State.NEW;
    private volatile String zookeeperHosts;
    private volatile ZkAdmin admin;
    private volatile GroupTreeReader tree;
    private EmbeddedZooKeeper embedded; // guarded by this

    LocalCluster(ClusterSettings settings) {
        this.settings = settings;
    }

    public static LocalClusterBuilder builder() {
        return new LocalClusterBuilder();
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
            tree = new GroupTreeReader(admin);
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
        List<Integer> coordinators = BrokerStatuses.of(live).coordinators();
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
            BrokerStatuses statuses = BrokerStatuses.of(live);
            List<Integer> coordinators = statuses.coordinators();
            if (coordinators.size() == 1) {
                return coordinators.get(0);
            }
            if (System.nanoTime() - start > timeoutNanos) {
                throw new IllegalStateException("no single coordinator among the running brokers within "
                        + timeout.toMillis() + " ms: coordinating " + coordinators + "; " + statuses.describe());
            }
            pause("waiting for a coordinator");
        }
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
        ZkPaths.offsets(group); // refuses a name that is no path segment, before anything else
        requireStarted("read the offsets of " + group);
        return tree.committedOffsets(group);
    }

    /**
     * The partition owners of {@code group}: topic → partition → owning consumer id (the stream
     * {@code "<consumerId>-<n>"} without its number; see {@link #ownerStreams}). Empty for an unknown group; garbage
     * is skipped.
     */
    public Map<String, Map<String, String>> owners(String group) {
        return GroupTreeReader.mapValues(readOwners(group), StreamId::consumerId);
    }

    /** Like {@link #owners}, with the owning stream {@code "<consumerId>-<n>"} as written in the owner node. */
    public Map<String, Map<String, String>> ownerStreams(String group) {
        return GroupTreeReader.mapValues(readOwners(group), StreamId::toString);
    }

    private Map<String, Map<String, StreamId>> readOwners(String group) {
        ZkPaths.owners(group); // refuses a name that is no path segment, before anything else
        requireStarted("read the owners of " + group);
        return tree.owners(group);
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
}
