package shepherd.examples.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import shepherd.broker.Broker;
import shepherd.broker.BrokerConfig;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.zookeeper.EmbeddedZooKeeper;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;
import shepherd.zookeeper.ZnodeFormatException;

/**
 * A real ZooKeeper server in this JVM, brokers {@code 1..n} on loopback (none, for a test that runs its broker as a
 * process of its own), and an admin handle that creates topics and reads what the coordinator stored. Closes
 * everything it started.
 *
 * <p>The brokers use the short timings of the project's own integration tests (a 3 s ZooKeeper session, D = 100 ms),
 * so a failed consumer is noticed within seconds; the server's tick of 300 ms also grants the production default
 * session of 6 s to a broker started with its defaults.
 */
public final class ExampleCluster implements AutoCloseable {
    /** ZooKeeper grants sessions of 2 – 20 ticks: 600 ms – 6 s. */
    private static final int TICK_MS = 300;
    private static final long ZOOKEEPER_CONNECT_TIMEOUT_MS = 10_000;

    private final EmbeddedZooKeeper zookeeper;
    private final ZooKeeper admin;
    private final List<Broker> brokers = new ArrayList<>();

    private ExampleCluster(EmbeddedZooKeeper zookeeper, ZooKeeper admin) {
        this.zookeeper = zookeeper;
        this.admin = admin;
    }

    /** Starts ZooKeeper, then {@code brokers} brokers with ids {@code 1..brokers}, each returning once registered. */
    public static ExampleCluster start(int brokers) {
        EmbeddedZooKeeper zookeeper;
        try {
            zookeeper = EmbeddedZooKeeper.start(Files.createTempDirectory("shepherd-example-zk-"), true, TICK_MS);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the embedded ZooKeeper", e);
        }
        ExampleCluster cluster = new ExampleCluster(zookeeper, connect(zookeeper.connectString()));
        try {
            for (int id = 1; id <= brokers; id++) {
                cluster.brokers.add(Broker.start(brokerConfig(id, zookeeper.connectString())));
            }
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw new IllegalStateException("a broker failed to start: " + e, e);
        }
        return cluster;
    }

    private static BrokerConfig brokerConfig(int id, String zookeeperConnect) {
        return BrokerConfig.defaults(id, zookeeperConnect).withOverrides(Map.of(
                BrokerConfig.LISTEN_HOST, "127.0.0.1",
                BrokerConfig.LISTEN_PORT, "0",
                BrokerConfig.SESSION_TIMEOUT_MS, "3000",
                BrokerConfig.MESSAGE_DELAY_MAX_MS, "100",
                BrokerConfig.LEASE_SAFETY_MARGIN_MS, "50",
                BrokerConfig.REBALANCE_STOP_TIMEOUT_MS, "500",
                BrokerConfig.REBALANCE_START_TIMEOUT_MS, "1000",
                BrokerConfig.REQUEST_TIMEOUT_MS, "1000",
                BrokerConfig.HANDOVER_GRACE_MS, "200",
                // The warm-up exercises the coordinator's code on spare threads; in a test JVM shared with the
                // application's consumers it would only compete with them for the CPU.
                BrokerConfig.WARMUP_MS, "0"));
    }

    private static ZooKeeper connect(String connectString) {
        CountDownLatch connected = new CountDownLatch(1);
        try {
            ZooKeeper zk = new ZooKeeper(connectString, 10_000, event -> {
                if (event.getState() == KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
            if (!connected.await(ZOOKEEPER_CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                zk.close();
                throw new IllegalStateException("no ZooKeeper session with " + connectString + " within "
                        + ZOOKEEPER_CONNECT_TIMEOUT_MS + " ms");
            }
            return zk;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting to ZooKeeper", e);
        }
    }

    /** What brokers and tools pass as {@code --zookeeper}: {@code 127.0.0.1:<port>}. */
    public String zookeeperConnect() {
        return zookeeper.connectString();
    }

    /** The in-process brokers' addresses, {@code 127.0.0.1:p1,127.0.0.1:p2,...}: a consumer's bootstrap. */
    public String bootstrap() {
        return brokers.stream().map(b -> "127.0.0.1:" + b.port()).collect(Collectors.joining(","));
    }

    /** Waits until exactly one in-process broker coordinates. */
    public void awaitCoordinator(Duration timeout) {
        Await.until(timeout, () -> "a single coordinator among " + brokers.size() + " brokers",
                () -> brokers.stream().filter(b -> b.status().coordinating()).count() == 1);
    }

    /**
     * Creates {@code topic} with {@code partitionsPerBroker} partitions on every in-process broker.
     *
     * @return its partition ids, {@code "<brokerId>-<n>"}, in (broker id, n) order
     */
    public List<String> createTopic(String topic, int partitionsPerBroker) {
        SortedMap<Integer, Integer> counts = new TreeMap<>();
        brokers.forEach(b -> counts.put(b.brokerId(), partitionsPerBroker));
        return createTopic(topic, counts);
    }

    /**
     * Creates {@code topic} with, for each broker id, that many partitions: what {@code shepherd topics create}
     * writes, {@code /brokers/topics/[topic]/[brokerId]}, in one {@code multi}, so the coordinator never sees half a
     * topic.
     *
     * @return its partition ids in (broker id, n) order
     */
    public List<String> createTopic(String topic, Map<Integer, Integer> partitionsByBroker) {
        createIfMissing(ZkPaths.BROKERS);
        createIfMissing(ZkPaths.TOPICS);
        List<Op> ops = new ArrayList<>();
        ops.add(Op.create(ZkPaths.topic(topic), new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        List<String> partitions = new ArrayList<>();
        new TreeMap<>(partitionsByBroker).forEach((broker, count) -> {
            ops.add(Op.create(ZkPaths.topicBroker(topic, broker), ZnodeCodec.encodePartitions(count),
                    Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            for (int n = 0; n < count; n++) {
                partitions.add(new PartitionId(broker, n).toString());
            }
        });
        zk("create topic " + topic, () -> admin.multi(ops));
        return List.copyOf(partitions);
    }

    /** The offsets {@code group} committed for {@code topic}: partition → next offset, in partition order. */
    public SortedMap<String, Long> committedOffsets(String group, String topic) {
        SortedMap<String, Long> offsets = new TreeMap<>(ExampleCluster::comparePartitions);
        for (String partition : children(ZkPaths.offsetsOfTopic(group, topic))) {
            String path = ZkPaths.offset(group, TopicPartition.of(topic, partition));
            data(path).ifPresent(bytes -> offsets.put(partition, decode(() -> ZnodeCodec.decodeOffset(path, bytes))));
        }
        return offsets;
    }

    /** The partition owners the coordinator wrote for {@code group}: topic → partition → stream id. */
    public SortedMap<String, SortedMap<String, String>> owners(String group) {
        SortedMap<String, SortedMap<String, String>> owners = new TreeMap<>();
        for (String topic : children(ZkPaths.owners(group))) {
            SortedMap<String, String> ofTopic = new TreeMap<>(ExampleCluster::comparePartitions);
            for (String partition : children(ZkPaths.ownersOfTopic(group, topic))) {
                String path = ZkPaths.owner(group, TopicPartition.of(topic, partition));
                data(path).ifPresent(bytes -> ofTopic.put(partition,
                        decode(() -> ZnodeCodec.decodeOwner(path, bytes)).owner().toString()));
            }
            owners.put(topic, ofTopic);
        }
        return owners;
    }

    /** The assignor the coordinator recorded in the group's node, if the group exists. */
    public Optional<String> assignorOf(String group) {
        String path = ZkPaths.group(group);
        return data(path).map(bytes -> decode(() -> ZnodeCodec.decodeGroup(path, bytes)).assignor());
    }

    private static int comparePartitions(String a, String b) {
        return PartitionId.parse(a).compareTo(PartitionId.parse(b));
    }

    private List<String> children(String path) {
        return zk("list " + path, () -> {
            try {
                return admin.getChildren(path, false).stream().sorted().toList();
            } catch (KeeperException.NoNodeException e) {
                return List.of();
            }
        });
    }

    private Optional<byte[]> data(String path) {
        return zk("read " + path, () -> {
            try {
                return Optional.of(admin.getData(path, false, null));
            } catch (KeeperException.NoNodeException e) {
                return Optional.empty();
            }
        });
    }

    private void createIfMissing(String path) {
        zk("create " + path, () -> {
            try {
                return admin.create(path, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } catch (KeeperException.NodeExistsException e) {
                return path;
            }
        });
    }

    @FunctionalInterface
    private interface ZkCall<T> {
        T call() throws KeeperException, InterruptedException;
    }

    private static <T> T zk(String what, ZkCall<T> call) {
        try {
            return call.call();
        } catch (KeeperException e) {
            throw new IllegalStateException("ZooKeeper refused to " + what + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while trying to " + what, e);
        }
    }

    @FunctionalInterface
    private interface Decoder<T> {
        T decode() throws ZnodeFormatException;
    }

    private static <T> T decode(Decoder<T> decoder) {
        try {
            return decoder.decode();
        } catch (ZnodeFormatException e) {
            throw new IllegalStateException("the coordinator wrote a node this harness cannot read: " + e, e);
        }
    }

    /** Halts the brokers, closes the admin handle and stops ZooKeeper, deleting its data. */
    @Override
    public void close() {
        brokers.forEach(Broker::halt);
        try {
            admin.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        zookeeper.close();
    }
}
