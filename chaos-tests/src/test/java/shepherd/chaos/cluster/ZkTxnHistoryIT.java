package shepherd.chaos.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import shepherd.chaos.ToxiproxyServer;
import shepherd.chaos.history.Entry;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;
import shepherd.zookeeper.ZnodeCodec.EpochValue;

/**
 * {@link ZkTxnHistory} reads back, from a real ensemble's transaction logs, what two coordinators did: plain
 * ZooKeeper sessions play brokers that win the election node, bump (or, fencing off, do not bump) the epoch and
 * write offsets, and the history shows who was elected with which epoch, which writes committed under it, and the
 * committed offsets. Each test gets a fresh ensemble, so its logs hold that test's story alone.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ZkTxnHistoryIT {
    private static final Duration OP_TIMEOUT = Duration.ofSeconds(30);
    private static final String GROUP = "g";
    private static final String TOPIC = "t";
    private static final String PARTITION = "1-0";
    private static final String OFFSET_PATH = ZkPaths.GROUPS + "/" + GROUP + "/offsets/" + TOPIC + "/" + PARTITION;

    private ToxiproxyServer toxiproxy;
    private ZkEnsemble ensemble;
    private ZooKeeper admin;
    private long wallMsAtStart;
    private long nanoAtStart;

    @BeforeEach
    void startEnsembleAndTree(TestInfo test) throws IOException, InterruptedException, KeeperException {
        toxiproxy = ToxiproxyServer.start();
        Path dir = Files.createDirectories(Path.of("target", "chaos-runs",
                "ZkTxnHistoryIT-" + test.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime()));
        wallMsAtStart = System.currentTimeMillis();
        nanoAtStart = System.nanoTime();
        ensemble = ZkEnsemble.start(dir, toxiproxy.client(), "history-it-");
        admin = ZkClients.connect(ensemble.connectString());
        // The tree as `shepherd` would find it; the admin session is no coordinator.
        create(admin, ZkPaths.CONSUMERS, new byte[0]);
        create(admin, ZkPaths.EPOCH, ZnodeCodec.encodeEpoch(new EpochValue(-1, false)));
        for (String path : List.of(ZkPaths.GROUPS, ZkPaths.GROUPS + "/" + GROUP, ZkPaths.GROUPS + "/" + GROUP
                + "/offsets", ZkPaths.GROUPS + "/" + GROUP + "/offsets/" + TOPIC)) {
            create(admin, path, new byte[0]);
        }
        create(admin, OFFSET_PATH, ZnodeCodec.encodeOffset(0));
    }

    @AfterEach
    void stopEnsemble() {
        ZkClients.closeQuietly(admin);
        try {
            if (ensemble != null) {
                ensemble.close();
            }
        } finally {
            if (toxiproxy != null) {
                toxiproxy.close();
            }
        }
    }

    @Test
    void twoFencedCoordinatorsShowAsTwoElectionsWithIncreasingEpochsAndTheirWrites() throws Exception {
        Stat bumpA;
        try (PlayedBroker a = PlayedBroker.connect(1, ensemble)) {
            bumpA = a.elect();
            a.fencedWrite(bumpA.getVersion(), 10);
        }
        Stat bumpB;
        try (PlayedBroker b = PlayedBroker.connect(2, ensemble)) {
            bumpB = b.elect();
            b.fencedWrite(bumpB.getVersion(), 20);
            // A write fenced with A's epoch fails now, and must not show as committed.
            KeeperException stale = assertThrows(KeeperException.class, () -> b.fencedWrite(bumpA.getVersion(), 99));
            assertEquals(KeeperException.Code.BADVERSION, stale.code());
        }

        ZkTxnHistory history = ZkTxnHistory.read(ensemble.dataDirs(), wallMsAtStart, nanoAtStart);

        List<Entry> story = coordinatorStory(history);
        assertEquals(6, story.size(), () -> "entries: " + story + "\n" + report(history));
        Entry.Elected electedA = (Entry.Elected) story.get(0);
        assertEquals(1, electedA.broker());
        assertEquals(1, electedA.epoch());
        assertEquals(bumpA.getMzxid(), electedA.zxid(), "Elected is stamped with the bump's zxid");
        Entry.Written writtenA = (Entry.Written) story.get(1);
        assertEquals(List.of(1, 1), List.of(writtenA.broker(), writtenA.epoch()));
        assertTrue(writtenA.what().contains(OFFSET_PATH), writtenA.what());
        assertEquals(10, ((Entry.OffsetRead) story.get(2)).offset());
        Entry.Elected electedB = (Entry.Elected) story.get(3);
        assertEquals(List.of(2, 2), List.of(electedB.broker(), electedB.epoch()));
        assertEquals(bumpB.getMzxid(), electedB.zxid());
        assertTrue(electedB.zxid() > writtenA.zxid(), "zxid order");
        Entry.Written writtenB = (Entry.Written) story.get(4);
        assertEquals(List.of(2, 2), List.of(writtenB.broker(), writtenB.epoch()));
        assertEquals(new Entry.OffsetRead(story.get(5).nanoTime(), GROUP, TOPIC, PARTITION, 20), story.get(5));
        assertWellFormed(history);
    }

    @Test
    void twoCoordinatorsThatNeverBumpTheEpochShareOne() throws Exception {
        try (PlayedBroker a = PlayedBroker.connect(1, ensemble)) {
            a.claimCoordinatorNode();
            a.unfencedWrite(10);
        }
        try (PlayedBroker b = PlayedBroker.connect(2, ensemble)) {
            b.claimCoordinatorNode();
            b.unfencedWrite(20);
        }

        ZkTxnHistory history = ZkTxnHistory.read(ensemble.dataDirs(), wallMsAtStart, nanoAtStart);

        List<Entry.Elected> elected = history.entries().stream()
                .filter(Entry.Elected.class::isInstance).map(Entry.Elected.class::cast).toList();
        assertEquals(2, elected.size(), () -> report(history));
        assertEquals(List.of(1, 2), elected.stream().map(Entry.Elected::broker).toList());
        assertEquals(List.of(0, 0), elected.stream().map(Entry.Elected::epoch).toList(),
                "both act under the epoch they found");
        List<Entry.Written> written = history.entries().stream()
                .filter(Entry.Written.class::isInstance).map(Entry.Written.class::cast).toList();
        assertEquals(List.of(0, 0), written.stream().map(Entry.Written::epoch).toList(), () -> report(history));
        assertEquals(List.of(0L, 10L, 20L), history.entries().stream().filter(Entry.OffsetRead.class::isInstance)
                .map(e -> ((Entry.OffsetRead) e).offset()).toList());
        assertWellFormed(history);
    }

    /** Everything but the admin's first offset: elections, writes and their offsets in order. */
    private static List<Entry> coordinatorStory(ZkTxnHistory history) {
        List<Entry> entries = history.entries();
        assertEquals(new Entry.OffsetRead(entries.get(0).nanoTime(), GROUP, TOPIC, PARTITION, 0), entries.get(0),
                () -> "the admin's offset comes first: " + report(history));
        return entries.subList(1, entries.size());
    }

    private void assertWellFormed(ZkTxnHistory history) {
        assertEquals(0, history.undecodable(), () -> report(history));
        assertEquals(0, history.garbageValues(), () -> report(history));
        assertEquals(4, history.foreignGroupWrites(), () -> "the admin's tree and first offset: " + report(history));
        long previous = Long.MIN_VALUE;
        for (Entry e : history.entries()) {
            assertTrue(e.nanoTime() > previous, () -> "nanoTimes not strictly increasing: " + report(history));
            previous = e.nanoTime();
        }
        // Wall clock and nanoTime agree to well within a second on one machine.
        long slackNanos = TimeUnit.SECONDS.toNanos(1);
        assertTrue(history.entries().get(0).nanoTime() > nanoAtStart - slackNanos, () -> report(history));
        assertTrue(previous < System.nanoTime() + slackNanos, () -> report(history));
    }

    private static String report(ZkTxnHistory history) {
        StringBuilder out = new StringBuilder(history.summary()).append('\n');
        history.txns().forEach(t -> out.append("  ").append(t).append('\n'));
        history.entries().forEach(e -> out.append("  ").append(e).append('\n'));
        history.problems().forEach(p -> out.append("  problem: ").append(p).append('\n'));
        return out.toString();
    }

    private static void create(ZooKeeper zk, String path, byte[] data) throws KeeperException, InterruptedException {
        ZkClients.retrying(OP_TIMEOUT, () -> zk.create(path, data, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
    }

    /** A plain session doing what a broker's election and writes do. */
    private record PlayedBroker(int brokerId, ZooKeeper zk) implements AutoCloseable {
        static PlayedBroker connect(int brokerId, ZkEnsemble ensemble) throws IOException, InterruptedException {
            return new PlayedBroker(brokerId, ZkClients.connect(ensemble.connectString()));
        }

        void claimCoordinatorNode() throws KeeperException, InterruptedException {
            zk.create(ZkPaths.COORDINATOR, ZnodeCodec.encodeCoordinator(brokerId), Ids.OPEN_ACL_UNSAFE,
                    CreateMode.EPHEMERAL);
        }

        /** Claims the node, then bumps the epoch: the returned stat's version is the epoch, its mzxid the bump's. */
        Stat elect() throws KeeperException, InterruptedException {
            claimCoordinatorNode();
            return zk.setData(ZkPaths.EPOCH, ZnodeCodec.encodeEpoch(new EpochValue(brokerId, false)), -1);
        }

        void fencedWrite(int epoch, long offset) throws KeeperException, InterruptedException {
            zk.multi(List.of(Op.check(ZkPaths.EPOCH, epoch),
                    Op.setData(OFFSET_PATH, ZnodeCodec.encodeOffset(offset), -1)));
        }

        void unfencedWrite(long offset) throws KeeperException, InterruptedException {
            zk.setData(OFFSET_PATH, ZnodeCodec.encodeOffset(offset), -1);
        }

        @Override
        public void close() {
            ZkClients.closeQuietly(zk);
        }
    }
}
