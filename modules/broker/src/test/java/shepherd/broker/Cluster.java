package shepherd.broker;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import shepherd.protocol.PartitionAssignment;
import shepherd.transport.TransportClient;
import shepherd.transport.TransportConfig;
import shepherd.zookeeper.CuttableProxy;
import shepherd.zookeeper.EmbeddedZooKeeper;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;

/**
 * Brokers, an admin ZooKeeper handle and test consumers under one chroot of a shared embedded ZooKeeper, with the
 * short timings of DESIGN §8 (session 3 s, pings 100 ms, D 100 ms). Closes everything it started.
 */
final class Cluster implements AutoCloseable {
    static final int SESSION_TIMEOUT_MS = 3_000;
    static final int PING_INTERVAL_MS = 100;
    static final int PING_RETRIES = 2;
    static final long MESSAGE_DELAY_MAX_MS = 100;
    static final long HANDOVER_GRACE_MS = 200;
    private static final AtomicInteger CHROOTS = new AtomicInteger();

    private final String connect;
    private final String chroot;
    private final String serverHostPort;
    private final Map<Broker, CuttableProxy> proxies = new java.util.HashMap<>();
    private final ZooKeeper admin;
    final List<Broker> brokers = new ArrayList<>();
    final List<TestConsumer> consumers = new ArrayList<>();
    final TransportClient client = TransportClient.create(TransportConfig.defaults().withIoThreads(2));

    Cluster(EmbeddedZooKeeper zk) throws Exception {
        String chroot = "/c" + CHROOTS.incrementAndGet() + "-" + System.nanoTime();
        ZooKeeper root = connect(zk.connectString());
        root.create(chroot, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        root.close();
        this.chroot = chroot;
        this.serverHostPort = zk.connectString();
        this.connect = ZkPaths.connectString(zk.connectString(), chroot);
        this.admin = connect(connect);
    }

    private static ZooKeeper connect(String connectString) throws Exception {
        CountDownLatch up = new CountDownLatch(1);
        ZooKeeper z = new ZooKeeper(connectString, 10_000, e -> {
            if (e.getState() == KeeperState.SyncConnected) {
                up.countDown();
            }
        });
        if (!up.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("admin client did not connect to " + connectString);
        }
        return z;
    }

    BrokerConfig config(int brokerId) {
        return config(brokerId, connect);
    }

    private BrokerConfig config(int brokerId, String connect) {
        return BrokerConfig.defaults(brokerId, connect).withOverrides(Map.of(
                BrokerConfig.LISTEN_HOST, "127.0.0.1",
                BrokerConfig.LISTEN_PORT, "0",
                BrokerConfig.SESSION_TIMEOUT_MS, Integer.toString(SESSION_TIMEOUT_MS),
                BrokerConfig.MESSAGE_DELAY_MAX_MS, Long.toString(MESSAGE_DELAY_MAX_MS),
                BrokerConfig.LEASE_SAFETY_MARGIN_MS, "50",
                BrokerConfig.REBALANCE_STOP_TIMEOUT_MS, "500",
                BrokerConfig.REBALANCE_START_TIMEOUT_MS, "1000",
                BrokerConfig.REQUEST_TIMEOUT_MS, "1000",
                BrokerConfig.SHUTDOWN_TIMEOUT_MS, "10000",
                BrokerConfig.HANDOVER_GRACE_MS, Long.toString(HANDOVER_GRACE_MS)));
    }

    Broker startBroker(int brokerId) throws IOException {
        Broker b = Broker.start(config(brokerId));
        brokers.add(b);
        return b;
    }

    /** A broker that reaches ZooKeeper through its own {@link CuttableProxy}, so {@link #crash} can isolate it. */
    Broker startBrokerViaProxy(int brokerId) throws IOException {
        CuttableProxy proxy = new CuttableProxy(serverHostPort);
        Broker b = Broker.start(config(brokerId, ZkPaths.connectString(proxy.hostPort(), chroot)));
        brokers.add(b);
        proxies.put(b, proxy);
        return b;
    }

    /**
     * A crash as ZooKeeper sees it: the broker's ZooKeeper connection is cut and every reconnect refused, so its
     * session is never closed and the server expires it after the session timeout; then the broker's sockets and
     * threads stop with no handover.
     */
    void crash(Broker b) {
        CuttableProxy proxy = proxies.get(b);
        proxy.refuse(true);
        proxy.cut();
        stopped.add(b);
        b.halt();
    }

    /**
     * Cuts the ZooKeeper link of a broker started with {@link #startBrokerViaProxy} and refuses every reconnect,
     * leaving the broker itself running: unless {@link #heal healed} within the session timeout, the server expires
     * its session for real, and the broker hears of it only once it can reconnect.
     */
    void isolate(Broker b) {
        CuttableProxy proxy = proxies.get(b);
        proxy.refuse(true);
        proxy.cut();
    }

    /** Lets an {@link #isolate isolated} broker reconnect to ZooKeeper. */
    void heal(Broker b) {
        proxies.get(b).refuse(false);
    }

    /** The session owning the ephemeral node at {@code path}, 0 if there is none. */
    long ephemeralOwner(String path) {
        try {
            org.apache.zookeeper.data.Stat stat = admin.exists(path, false);
            return stat == null ? 0 : stat.getEphemeralOwner();
        } catch (Exception e) {
            throw new IllegalStateException("exists(" + path + ") failed", e);
        }
    }

    List<InetSocketAddress> addresses() {
        return brokers.stream().map(b -> new InetSocketAddress("127.0.0.1", b.port())).toList();
    }

    TestConsumer consumer(String group, String id, String topic) {
        TestConsumer c = new TestConsumer(client, addresses(), group, id, topic, PING_INTERVAL_MS, PING_RETRIES);
        consumers.add(c);
        return c.start();
    }

    /** A consumer registering with {@code subscription} (a wildcard one, say) instead of one static topic. */
    TestConsumer consumer(String group, String id, shepherd.protocol.Subscription subscription) {
        TestConsumer c = new TestConsumer(client, addresses(), group, id, subscription, PING_INTERVAL_MS,
                PING_RETRIES);
        consumers.add(c);
        return c.start();
    }

    /** Writes {@code /brokers/topics/[topic]/[brokerId]} = {@code partitions}, creating or updating it. */
    void setPartitions(String topic, int brokerId, int partitions) throws Exception {
        createIfMissing(ZkPaths.BROKERS);
        createIfMissing(ZkPaths.TOPICS);
        createIfMissing(ZkPaths.topic(topic));
        String path = ZkPaths.topicBroker(topic, brokerId);
        byte[] value = ZnodeCodec.encodePartitions(partitions);
        try {
            admin.create(path, value, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
            admin.setData(path, value, -1);
        }
    }

    boolean exists(String path) {
        try {
            return admin.exists(path, false) != null;
        } catch (Exception e) {
            throw new IllegalStateException("exists(" + path + ") failed", e);
        }
    }

    /** Writes {@code data} at {@code path} as a persistent node, creating missing parents empty. */
    void put(String path, byte[] data) throws Exception {
        String parent = ZkPaths.parent(path);
        if (!parent.equals("/") && admin.exists(parent, false) == null) {
            put(parent, new byte[0]);
        }
        try {
            admin.create(path, data, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
            admin.setData(path, data, -1);
        }
    }

    private void createIfMissing(String path) throws Exception {
        try {
            admin.create(path, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
            // there already
        }
    }

    /** The one broker whose status says it coordinates, once exactly one does. */
    Broker awaitSingleCoordinator(long timeoutMs) {
        await(timeoutMs, "exactly one coordinator among " + brokers.size() + " brokers",
                () -> live().stream().filter(b -> b.status().coordinating()).count() == 1);
        return live().stream().filter(b -> b.status().coordinating()).findFirst().orElseThrow();
    }

    final List<Broker> stopped = new ArrayList<>();

    List<Broker> live() {
        return brokers.stream().filter(b -> !stopped.contains(b)).toList();
    }

    /**
     * Waits until every consumer is started in one generation with exactly the range assignment of DESIGN §6 for
     * {@code partitions} (sorted by (broker id, n)) over the consumers sorted by id, one stream each.
     */
    void awaitRangeAssignment(String topic, List<String> partitions, List<TestConsumer> members, long timeoutMs) {
        Supplier<String> state = () -> members.stream()
                .map(c -> c.id() + "@g" + c.generation() + "e" + c.highestEpoch() + "=" + names(c.assigned())).toList()
                .toString();
        await(timeoutMs, () -> "range assignment of " + partitions + " over " + members.size()
                + " consumers; now " + state.get(), () -> {
                    List<TestConsumer> sorted = members.stream().sorted((a, b) -> a.id().compareTo(b.id())).toList();
                    int generation = sorted.get(0).generation();
                    int p = partitions.size();
                    int s = sorted.size();
                    int from = 0;
                    for (int i = 0; i < s; i++) {
                        TestConsumer c = sorted.get(i);
                        List<PartitionAssignment> a = c.assigned();
                        if (a == null || c.generation() != generation) {
                            return false;
                        }
                        int count = p / s + (i < p % s ? 1 : 0);
                        List<String> expected = partitions.subList(from, from + count);
                        from += count;
                        if (!names(a).equals(expected) || !a.stream().allMatch(x -> x.topic().equals(topic))) {
                            return false;
                        }
                    }
                    return true;
                });
    }

    static List<String> names(List<PartitionAssignment> a) {
        if (a == null) {
            return null;
        }
        return a.stream().map(PartitionAssignment::partition)
                .sorted((x, y) -> compareIds(x, y)).toList();
    }

    /** Partition ids "b-n" sorted by (b, n) as numbers. */
    static int compareIds(String x, String y) {
        String[] a = x.split("-");
        String[] b = y.split("-");
        int c = Integer.compare(Integer.parseInt(a[0]), Integer.parseInt(b[0]));
        return c != 0 ? c : Integer.compare(Integer.parseInt(a[1]), Integer.parseInt(b[1]));
    }

    static void await(long timeoutMs, String what, BooleanSupplier condition) {
        await(timeoutMs, () -> what, condition);
    }

    /** Polls {@code condition} every 20 ms until it holds; fails with {@code what} after {@code timeoutMs}. */
    static void await(long timeoutMs, Supplier<String> what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            if (condition.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                fail("not within " + timeoutMs + " ms: " + what.get());
            }
            try {
                Thread.sleep(20); // polling interval of a condition with a deadline, not a wait for an event
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting for " + what.get());
            }
        }
    }

    Optional<Broker> coordinator() {
        return live().stream().filter(b -> b.status().coordinating()).findFirst();
    }

    @Override
    public void close() throws Exception {
        consumers.forEach(TestConsumer::close);
        for (Broker b : brokers) {
            b.halt();
        }
        client.close();
        admin.close();
        for (CuttableProxy p : proxies.values()) {
            p.close();
        }
    }
}
