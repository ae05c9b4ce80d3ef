package shepherd.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import shepherd.broker.Broker;
import shepherd.broker.InvalidConfigException;
import shepherd.cli.local.LocalCluster;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.zookeeper.EmbeddedZooKeeper;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;

/** {@link LocalCluster} against a real embedded ZooKeeper and real brokers on loopback. */
class LocalClusterIT {
    /** Generous for a loaded CI machine; a healthy election takes well under a second. */
    private static final Duration ELECTION_TIMEOUT = Duration.ofSeconds(15);
    /** Slack on top of the session timeout for a coordinator to follow a halted one. */
    private static final long HALT_SLACK_MS = 2_000;

    @Test
    void coordinatorMovesOnGracefulStopAndHaltAndARestartedBrokerRejoins() throws Exception {
        LocalCluster cluster = LocalCluster.builder().start();
        try (cluster) {
            assertEquals(List.of(1, 2, 3), cluster.brokerIds());
            List<InetSocketAddress> bootstrap = cluster.bootstrap();
            assertEquals(3, bootstrap.size());
            assertEquals(String.join(",", bootstrap.stream().map(a -> "127.0.0.1:" + a.getPort()).toList()),
                    cluster.bootstrapString());

            assertEquals(List.of("1-0", "1-1", "2-0", "2-1", "3-0", "3-1"), cluster.createTopic("orders", 2));
            cluster.setPartitions("orders", 3, 5);
            try (ZooKeeper zk = connect(cluster.zookeeperConnectString())) {
                for (int id = 1; id <= 3; id++) {
                    String path = ZkPaths.topicBroker("orders", id);
                    assertEquals(id == 3 ? 5 : 2, ZnodeCodec.decodePartitions(path, zk.getData(path, false, null)));
                }

                int first = cluster.awaitCoordinator(ELECTION_TIMEOUT);
                assertEquals(OptionalInt.of(first), cluster.coordinatorId());
                assertEquals(first, ZnodeCodec.decodeCoordinator(ZkPaths.COORDINATOR,
                        zk.getData(ZkPaths.COORDINATOR, false, null)));

                assertTrue(cluster.stopBroker(first), "the coordinator handed over within the shutdown timeout");
                int second = cluster.awaitCoordinator(ELECTION_TIMEOUT);
                assertNotEquals(first, second);
                assertEquals(2, cluster.brokerIds().size());
                assertNull(zk.exists(ZkPaths.broker(first), false), "a stopped broker's registration is gone");

                cluster.haltBroker(second);
                int third = cluster.awaitCoordinator(Duration.ofMillis(cluster.sessionTimeoutMs() + HALT_SLACK_MS));
                assertEquals(List.of(third), cluster.brokerIds());

                Broker restarted = cluster.restartBroker(first);
                assertSame(restarted, cluster.broker(first));
                assertEquals(List.of(Math.min(first, third), Math.max(first, third)), cluster.brokerIds());
                assertTrue(cluster.bootstrap().contains(new InetSocketAddress("127.0.0.1", restarted.port())));
                assertEquals(third, cluster.awaitCoordinator(ELECTION_TIMEOUT),
                        "a restarted broker joins as a follower");
            }

            assertEquals(Map.of(), cluster.committedOffsets("no-such-group"));
            assertEquals(Map.of(), cluster.owners("no-such-group"));
        }
        assertEquals(List.of(), cluster.brokerIds(), "close halts the brokers that remain");
        assertDoesNotThrow(cluster::close, "close is idempotent");
    }

    @Test
    void offsetsAndOwnersAreReadFromTheTreeAndGarbageIsSkipped() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().brokers(1).start()) {
            // No coordinator may rewrite the group while this test writes it by hand.
            cluster.stopBroker(1);
            try (ZooKeeper zk = connect(cluster.zookeeperConnectString())) {
                put(zk, ZkPaths.offset("g", TopicPartition.of("t", "1-0")), ZnodeCodec.encodeOffset(42));
                put(zk, ZkPaths.offset("g", TopicPartition.of("t", "1-10")), ZnodeCodec.encodeOffset(7));
                put(zk, ZkPaths.offset("g", TopicPartition.of("t", "1-2")), ZnodeCodec.encodeOffset(0));
                put(zk, ZkPaths.offset("g", TopicPartition.of("t", "2-0")), "not json".getBytes(UTF_8));
                put(zk, ZkPaths.offsetsOfTopic("g", "t") + "/bogus", ZnodeCodec.encodeOffset(1));
                put(zk, ZkPaths.offset("g", TopicPartition.of("u", "3-1")), ZnodeCodec.encodeOffset(9));
                put(zk, ZkPaths.owner("g", TopicPartition.of("t", "1-0")),
                        ZnodeCodec.encodeOwner(new ZnodeCodec.OwnerValue(StreamId.parse("c-1-3"), 4)));
                put(zk, ZkPaths.owner("g", TopicPartition.of("t", "1-1")), "{\"version\":2}".getBytes(UTF_8));
            }

            Map<String, Map<String, Long>> offsets = cluster.committedOffsets("g");
            assertEquals(Map.of("t", Map.of("1-0", 42L, "1-2", 0L, "1-10", 7L), "u", Map.of("3-1", 9L)), offsets);
            assertEquals(List.of("1-0", "1-2", "1-10"), List.copyOf(offsets.get("t").keySet()),
                    "partitions in (broker id, n) order");
            assertEquals(Map.of("t", Map.of("1-0", "c-1")), cluster.owners("g"));
            assertEquals(Map.of("t", Map.of("1-0", "c-1-3")), cluster.ownerStreams("g"));
        }
    }

    @Test
    void clustersSharingAnExternalZooKeeperStayApartUnderTheirChroots() throws Exception {
        try (EmbeddedZooKeeper external = EmbeddedZooKeeper.startTemporary();
             LocalCluster a = LocalCluster.builder().brokers(1).externalZooKeeper(external.connectString()).start();
             LocalCluster b = LocalCluster.builder().brokers(1).externalZooKeeper(external.connectString())
                     .chroot("/apps/b").start()) {
            assertEquals(external.connectString() + "/apps/b", b.zookeeperConnectString());
            assertNotEquals(a.chroot(), b.chroot());
            a.createTopic("only-in-a", 1);
            assertEquals(1, a.awaitCoordinator(ELECTION_TIMEOUT));
            assertEquals(1, b.awaitCoordinator(ELECTION_TIMEOUT), "each chroot elects its own coordinator");
            try (ZooKeeper zk = connect(b.zookeeperConnectString())) {
                assertNull(zk.exists(ZkPaths.topic("only-in-a"), false));
            }
            a.close();
            try (ZooKeeper zk = connect(external.connectString())) {
                assertTrue(zk.exists(a.chroot(), false) != null, "an external ZooKeeper outlives the cluster");
            }
        }
    }

    @Test
    void misuseIsRefusedNamingTheOffendingValue() {
        assertMessageContains("0", assertThrows(IllegalArgumentException.class,
                () -> LocalCluster.builder().brokers(0)));
        assertMessageContains("12", assertThrows(InvalidConfigException.class,
                () -> LocalCluster.builder().sessionTimeoutMs(12).build()));
        assertMessageContains("a b", assertThrows(IllegalArgumentException.class,
                () -> LocalCluster.builder().externalZooKeeper("a b")));
        assertMessageContains("x/", assertThrows(IllegalArgumentException.class,
                () -> LocalCluster.builder().chroot("/x/")));

        LocalCluster notStarted = LocalCluster.builder().brokers(1).build();
        assertMessageContains("start()", assertThrows(IllegalStateException.class,
                () -> notStarted.createTopic("t", 1)));
        notStarted.close();

        try (LocalCluster cluster = LocalCluster.builder().brokers(1).start()) {
            assertMessageContains("7", assertThrows(IllegalArgumentException.class, () -> cluster.stopBroker(7)));
            assertMessageContains("0", assertThrows(IllegalArgumentException.class, () -> cluster.broker(0)));
            assertMessageContains("-1", assertThrows(IllegalArgumentException.class,
                    () -> cluster.createTopic("t", -1)));
            assertMessageContains("9", assertThrows(IllegalArgumentException.class,
                    () -> cluster.setPartitions("t", 9, 1)));
            assertMessageContains("-2", assertThrows(IllegalArgumentException.class,
                    () -> cluster.setPartitions("t", 1, -2)));
            assertMessageContains("a/b", assertThrows(IllegalArgumentException.class,
                    () -> cluster.committedOffsets("a/b")));
            assertThrows(IllegalStateException.class, cluster::start);

            cluster.haltBroker(1);
            assertMessageContains("not running", assertThrows(IllegalStateException.class,
                    () -> cluster.haltBroker(1)));
            assertMessageContains("no broker is running", assertThrows(IllegalStateException.class,
                    () -> cluster.awaitCoordinator(Duration.ofMillis(50))));
        }
    }

    private static void assertMessageContains(String expected, Throwable e) {
        assertTrue(e.getMessage() != null && e.getMessage().contains(expected),
                "message should name '" + expected + "': " + e.getMessage());
    }

    private static ZooKeeper connect(String connectString) throws Exception {
        CountDownLatch up = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, 10_000, e -> {
            if (e.getState() == KeeperState.SyncConnected) {
                up.countDown();
            }
        });
        if (!up.await(10, TimeUnit.SECONDS)) {
            zk.close();
            throw new IllegalStateException("no session with " + connectString);
        }
        return zk;
    }

    /** Writes a persistent node, creating missing parents empty. */
    private static void put(ZooKeeper zk, String path, byte[] data) throws Exception {
        String parent = ZkPaths.parent(path);
        if (!parent.equals("/") && zk.exists(parent, false) == null) {
            put(zk, parent, new byte[0]);
        }
        try {
            zk.create(path, data, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
            zk.setData(path, data, -1);
        }
    }
}
