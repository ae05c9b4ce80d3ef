package shepherd.zookeeper;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent;
import shepherd.coordination.CoordinatorEvent.ElectionWon;
import shepherd.coordination.CoordinatorEvent.GroupRead;
import shepherd.coordination.CoordinatorEvent.LeaderObserved;
import shepherd.coordination.GroupSnapshot;
import shepherd.coordination.Registration;
import shepherd.coordination.ZkOp;
import shepherd.coordination.ZkRead;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.protocol.BrokerInfo;

/**
 * The adapter against a real (embedded) ZooKeeper server: real sessions, real watches, session expiry forced on the
 * server side. Each test works under its own chroot, which also proves the adapter needs nothing but ZooKeeper's own
 * {@code host:port/chroot} to live below a root.
 */
class ZooKeeperAdapterIT {
    private static final int SESSION_TIMEOUT_MS = 4_000;
    /**
     * The server's tick: sessions may last 2–20 ticks, so up to 10 s. Tests that cut a session's connection and
     * expect it back (not expired) use {@link #OUTAGE_SESSION_TIMEOUT_MS}: on a loaded 2-core machine an outage of a
     * few seconds outlived a 4 s session (the client declares it expired after 4/3 of it without contact).
     */
    private static final int TICK_MS = 500;
    private static final int OUTAGE_SESSION_TIMEOUT_MS = 10_000;
    private static final AtomicInteger CHROOTS = new AtomicInteger();

    private static EmbeddedZooKeeper server;
    private ZooKeeper admin;
    private String connectString;
    private final List<ZooKeeperAdapter> adapters = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        try {
            server = EmbeddedZooKeeper.start(java.nio.file.Files.createTempDirectory("shepherd-zk-"), true, TICK_MS);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @BeforeEach
    void chroot() throws Exception {
        String chroot = "/it" + CHROOTS.incrementAndGet();
        ZooKeeper root = connect(server.connectString());
        root.create(chroot, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        root.close();
        connectString = ZkPaths.connectString(server.connectString(), chroot);
        admin = connect(connectString);
    }

    @AfterEach
    void closeAll() throws Exception {
        adapters.forEach(ZooKeeperAdapter::close);
        admin.close();
    }

    private ZooKeeperAdapter adapter(int brokerId, EventLog log) {
        return adapter(ZooKeeperAdapter.Config.of(connectString, SESSION_TIMEOUT_MS, brokerId), log);
    }

    /** Broker 1's adapter reaching this test's chroot through {@code proxy}, with the outage session timeout. */
    private ZooKeeperAdapter adapterBehind(CuttableProxy proxy, EventLog log) {
        String chroot = connectString.substring(connectString.indexOf('/'));
        return adapter(ZooKeeperAdapter.Config.of(proxy.hostPort() + chroot, OUTAGE_SESSION_TIMEOUT_MS, 1), log);
    }

    /** Runs {@code a} for election and returns the epoch it won (nobody else runs). */
    private static int elect(ZooKeeperAdapter a, EventLog log) throws InterruptedException {
        a.execute(new CoordinatorEffect.RunForElection());
        return log.await(ElectionWon.class).epoch();
    }

    /** Broker 1's adapter, elected, with its event log: where the tests that write a group first start. */
    private record Elected(EventLog log, ZooKeeperAdapter adapter, int epoch) {}

    private Elected elected() throws InterruptedException {
        EventLog log = new EventLog();
        ZooKeeperAdapter a = adapter(1, log);
        return new Elected(log, a, elect(a, log));
    }

    private ZooKeeperAdapter adapter(ZooKeeperAdapter.Config config, EventLog log) {
        ZooKeeperAdapter adapter = ZooKeeperAdapter.open(config, log::accept, System::currentTimeMillis);
        log.tagWith(adapter::sessionId);
        adapters.add(adapter);
        return adapter;
    }

    // ------------------------------------------------------------------ session events

    @Test
    void aCutConnectionIsDisconnectedThenSyncConnectedOnTheSameSession() throws Exception {
        try (CuttableProxy proxy = new CuttableProxy(server.connectString())) {
            EventLog log = new EventLog();
            ZooKeeperAdapter a = adapterBehind(proxy, log);
            a.execute(new CoordinatorEffect.KeepAlive());
            log.await(CoordinatorEvent.ZkSynced.class);
            long session = a.sessionId();

            long cutAtMs = System.currentTimeMillis();
            proxy.cut();
            int disconnected = log.indexOf(log.await(CoordinatorEvent.ZkDisconnected.class));
            CoordinatorEvent.ZkSyncConnected back = log.await(CoordinatorEvent.ZkSyncConnected.class, disconnected,
                    e -> true);
            assertTrue(back.sentAtMs() >= cutAtMs, "sentAtMs " + back.sentAtMs() + " before the cut " + cutAtMs);
            assertEquals(session, a.sessionId(), "the same session continues");
            assertEquals(List.of(), log.all(CoordinatorEvent.ZkExpired.class));

            a.execute(new CoordinatorEffect.KeepAlive());
            log.await(CoordinatorEvent.ZkSynced.class, log.indexOf(back), e -> e.sentAtMs() >= back.sentAtMs());
        }
    }

    @Test
    void requestsDuringAnOutageFailAndWritesReportAnUnknownOutcome() throws Exception {
        try (CuttableProxy proxy = new CuttableProxy(server.connectString())) {
            EventLog log = new EventLog();
            ZooKeeperAdapter a = adapterBehind(proxy, log);
            int epoch = elect(a, log);

            proxy.refuse(true);
            proxy.cut();
            log.await(CoordinatorEvent.ZkDisconnected.class);
            ZkRead read = new ZkRead.Group("g");
            a.execute(new CoordinatorEffect.Read(read));
            a.execute(new CoordinatorEffect.Write(1, epoch, true, List.of(new ZkOp.PutGroup("g", 1, "range"))));
            CoordinatorEvent.ZkReadFailed failed = log.await(CoordinatorEvent.ZkReadFailed.class);
            assertEquals(read, failed.read());
            CoordinatorEvent.ZkWriteFailed writeFailed = log.await(CoordinatorEvent.ZkWriteFailed.class);
            assertTrue(writeFailed.unknownOutcome(), writeFailed.toString());

            proxy.refuse(false);
            log.await(CoordinatorEvent.ZkSyncConnected.class);
            // The same write, re-sent as the core does after an unknown outcome, lands under the same epoch.
            a.execute(new CoordinatorEffect.Write(2, epoch, true, List.of(new ZkOp.PutGroup("g", 1, "range"))));
            log.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 2);
        }
    }

    // ------------------------------------------------------------------ election

    @Test
    void exactlyOneOfThreeWinsAndEpochsRiseAcrossReElections() throws Exception {
        List<EventLog> logs = List.of(new EventLog(), new EventLog(), new EventLog());
        List<ZooKeeperAdapter> candidates = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            candidates.add(adapter(i + 1, logs.get(i)));
            candidates.get(i).execute(new CoordinatorEffect.RunForElection());
        }
        int lastEpoch = 0;
        List<Integer> alive = new ArrayList<>(List.of(0, 1, 2));
        while (!alive.isEmpty()) {
            int winner = awaitSingleWinner(logs, alive, lastEpoch);
            int epoch = logs.get(winner).all(ElectionWon.class).get(0).epoch();
            assertTrue(epoch > lastEpoch, "epoch " + epoch + " after " + lastEpoch);
            assertEquals(epoch, admin.exists(ZkPaths.EPOCH, false).getVersion(), "epoch = data version");
            lastEpoch = epoch;
            // The winner's session ends: its ephemeral election node goes, a survivor wins.
            candidates.get(winner).close();
            alive.remove(Integer.valueOf(winner));
        }
    }

    /**
     * Waits until every adapter in {@code alive} has either won with an epoch above {@code above} or observed such a
     * leader; then exactly one has won, and every other one observed that one.
     */
    private static int awaitSingleWinner(List<EventLog> logs, List<Integer> alive, int above) throws Exception {
        for (int i : alive) {
            logs.get(i).await(CoordinatorEvent.class, 0, e -> e instanceof ElectionWon w && w.epoch() > above
                    || e instanceof LeaderObserved o && o.epoch() > above);
        }
        List<Integer> winners = alive.stream().filter(i -> logs.get(i).all(ElectionWon.class).stream()
                .anyMatch(w -> w.epoch() > above)).toList();
        assertEquals(1, winners.size(), "winners: " + winners);
        int winner = winners.get(0);
        int epoch = logs.get(winner).all(ElectionWon.class).stream().mapToInt(ElectionWon::epoch).max().orElseThrow();
        for (int i : alive) {
            if (i != winner) {
                LeaderObserved seen = logs.get(i).await(LeaderObserved.class, 0, o -> o.epoch() > above);
                assertEquals(new LeaderObserved(winner + 1, epoch), seen);
            }
        }
        return winner;
    }

    @Test
    void serverSideExpiryIsEnqueuedBeforeAnythingOfTheNewSession() throws Exception {
        EventLog log = new EventLog();
        ZooKeeperAdapter adapter = adapter(1, log);
        adapter.registerBroker(new BrokerInfo(1, "h", 9092, "h-1")).get(15, TimeUnit.SECONDS);
        int firstEpoch = elect(adapter, log);
        long oldSession = adapter.sessionId();

        // A second handle on the same session, closed: the server ends the session for real.
        CountDownLatch cloned = new CountDownLatch(1);
        ZooKeeper clone = new ZooKeeper(connectString, SESSION_TIMEOUT_MS, e -> {
            if (e.getState() == KeeperState.SyncConnected) {
                cloned.countDown();
            }
        }, oldSession, adapter.sessionPassword());
        assertTrue(cloned.await(15, TimeUnit.SECONDS));
        clone.close();

        CoordinatorEvent.ZkExpired expired = log.await(CoordinatorEvent.ZkExpired.class);
        adapter.execute(new CoordinatorEffect.RunForElection()); // what the core does on ZkExpired
        ElectionWon again = log.await(ElectionWon.class, log.indexOf(expired), w -> true);
        assertTrue(again.epoch() > firstEpoch);

        List<EventLog.Entry> entries = log.entries();
        int expiredAt = log.indexOf(expired);
        assertEquals(oldSession, entries.get(expiredAt).sessionId(), "ZkExpired belongs to the old session");
        for (int i = 0; i < expiredAt; i++) {
            assertEquals(oldSession, entries.get(i).sessionId(), "new-session event before ZkExpired: " + entries);
        }
        long newSession = adapter.sessionId();
        assertNotEquals(oldSession, newSession);
        for (int i = expiredAt + 1; i < entries.size(); i++) {
            assertEquals(newSession, entries.get(i).sessionId(), "old-session event after ZkExpired: " + entries);
        }
        // The broker registration came back with the new session.
        awaitOwner(ZkPaths.broker(1), newSession);
        assertEquals(newSession, admin.exists(ZkPaths.COORDINATOR, false).getEphemeralOwner());
    }

    @Test
    void aDeposedCoordinatorsFencedWriteIsRejectedAndChangesNothing() throws Exception {
        TwoBrokers two = broker1WinsBroker2Watches();
        EventLog logA = two.logA();
        EventLog logB = two.logB();
        ZooKeeperAdapter a = two.a();
        ZooKeeperAdapter b = two.b();
        int epochA = two.epochA();

        a.execute(new CoordinatorEffect.Write(1, epochA, true, List.of(new ZkOp.PutGroup("g", 1, "range"))));
        logA.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 1);
        byte[] before = admin.getData(ZkPaths.group("g"), false, null);

        a.execute(new CoordinatorEffect.Resign(false));
        int epochB = logB.await(ElectionWon.class).epoch();
        assertTrue(epochB > epochA);

        a.execute(new CoordinatorEffect.Write(2, epochA, true, List.of(new ZkOp.PutGroup("g", 2, "sticky"),
                new ZkOp.PutOffset("g", TopicPartition.of("t", "1-0"), 9, "c"))));
        logA.await(CoordinatorEvent.ZkWriteFenced.class, 0, f -> f.writeId() == 2);
        assertArrayEquals(before, admin.getData(ZkPaths.group("g"), false, null));
        assertEquals(null, admin.exists(ZkPaths.offsets("g"), false));

        // The negative control: without the check the same stale write goes through.
        a.execute(new CoordinatorEffect.Write(3, epochA, false, List.of(new ZkOp.PutGroup("g", 2, "sticky"))));
        logA.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 3);
    }

    @Test
    void withoutTheEpochBumpTheNextWinnerSharesTheDeposedCoordinatorsEpoch() throws Exception {
        // The chaos suite's negative control (test.fencing=disabled): the seed's unfenced election.
        EventLog logA = new EventLog();
        EventLog logB = new EventLog();
        int versionBefore = epochNodeAtVersion3().getVersion();
        ZooKeeperAdapter a = adapter(ZooKeeperAdapter.Config.of(connectString, SESSION_TIMEOUT_MS, 1)
                .withoutEpochBump(), logA);
        int epochA = elect(a, logA);
        assertEquals(versionBefore, epochA, "the win took the version it read");
        ZooKeeperAdapter b = adapter(ZooKeeperAdapter.Config.of(connectString, SESSION_TIMEOUT_MS, 2)
                .withoutEpochBump(), logB);
        b.execute(new CoordinatorEffect.RunForElection());
        assertEquals(new LeaderObserved(1, epochA), logB.await(LeaderObserved.class),
                "the holder's id comes from the election node, the epoch node never named it");

        a.close(); // a crash: its election node goes with its session, nothing is handed over
        assertEquals(epochA, logB.await(ElectionWon.class).epoch(), "same epoch as the deposed coordinator");
        assertEquals(versionBefore, admin.exists(ZkPaths.EPOCH, false).getVersion(), "never bumped");
        // So an unfenced write of the deposed epoch lands: nothing in ZooKeeper tells the two apart.
        b.execute(new CoordinatorEffect.Write(1, epochA, false, List.of(new ZkOp.PutGroup("g", 1, "range"))));
        logB.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 1);
    }

    /** An epoch node at version 3, as three earlier epochs would have left it. */
    private Stat epochNodeAtVersion3() throws Exception {
        byte[] data = ZnodeCodec.encodeEpoch(new ZnodeCodec.EpochValue(7, false));
        admin.create(ZkPaths.CONSUMERS, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        admin.create(ZkPaths.EPOCH, data, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        for (int version = 0; version < 3; version++) {
            admin.setData(ZkPaths.EPOCH, data, version);
        }
        return admin.exists(ZkPaths.EPOCH, false);
    }

    @Test
    void aCleanHandoverIsSeenByTheNextWinner() throws Exception {
        TwoBrokers two = broker1WinsBroker2Watches();
        EventLog logA = two.logA();
        EventLog logB = two.logB();
        ZooKeeperAdapter a = two.a();
        ZooKeeperAdapter b = two.b();
        int epochA = two.epochA();
        assertTrue(!logA.await(ElectionWon.class).previousHandedOver());

        a.execute(new CoordinatorEffect.Write(1, epochA, true,
                List.of(new ZkOp.PutHandover(epochA), new ZkOp.PutGroup("g", 4, "range"))));
        logA.await(CoordinatorEvent.ZkWriteDone.class);
        a.execute(new CoordinatorEffect.Resign(false));

        ElectionWon won = logB.await(ElectionWon.class);
        assertTrue(won.previousHandedOver());
        assertTrue(won.epoch() > epochA + 1, "the handover bumped the version once more: " + won.epoch());
        // The handover's own bump fences every later write of the old epoch.
        a.execute(new CoordinatorEffect.Write(2, epochA, true, List.of(new ZkOp.PutGroup("g", 5, "range"))));
        logA.await(CoordinatorEvent.ZkWriteFenced.class);
    }

    // ------------------------------------------------------------------ writes and reads

    @Test
    void writtenGroupReadsBackEqual() throws Exception {
        EventLog log = new EventLog();
        ZooKeeperAdapter a = adapter(1, log);
        int epoch = elect(a, log);
        List<Registration> regs = ZnodeCodecTest.registrations();
        TopicPartition p0 = TopicPartition.of("t", "1-0");
        TopicPartition p1 = TopicPartition.of("t", "1-1");
        TopicPartition p2 = TopicPartition.of("u", "2-10");
        a.execute(new CoordinatorEffect.Write(1, epoch, true, List.of(
                new ZkOp.PutGroup("g", 3, "roundrobin"),
                new ZkOp.PutRegistration("g", "c1", regs.get(0)),
                new ZkOp.PutRegistration("g", "c2", regs.get(1)),
                new ZkOp.PutOwner("g", p0, new StreamId("c1", 0), 3),
                new ZkOp.PutOwner("g", p1, new StreamId("c2", 1), 3),
                new ZkOp.PutOwner("g", p2, new StreamId("c2", 0), 3),
                new ZkOp.PutOffset("g", p0, 42, "c1"),
                new ZkOp.PutOffset("g", p2, 7, "c2"),
                new ZkOp.DeleteOwner("g", p1))));
        // A second write right behind the first: it must see the first's nodes (setData, not create).
        a.execute(new CoordinatorEffect.Write(2, epoch, true, List.of(
                new ZkOp.PutOffset("g", p0, 43, "c1"), new ZkOp.PutRegistration("g", "c3", regs.get(2)),
                new ZkOp.DeleteRegistration("g", "c2"), new ZkOp.PutRegistration("g", "c2", regs.get(1)))));
        // Effects reach ZooKeeper in order: the read, issued at once, sees both writes.
        a.execute(new CoordinatorEffect.Read(new ZkRead.Group("g")));
        GroupRead read = log.await(GroupRead.class);
        int done1 = log.indexOf(log.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 1));
        int done2 = log.indexOf(log.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 2));
        assertTrue(done1 < done2 && done2 < log.indexOf(read), log.events().toString());
        GroupSnapshot expected = GroupSnapshot.of(3, "roundrobin",
                Map.of("c1", regs.get(0), "c2", regs.get(1), "c3", regs.get(2)),
                Map.of(p0, new StreamId("c1", 0), p2, new StreamId("c2", 0)),
                Map.of(p0, 43L, p2, 7L));
        assertEquals(expected, read.snapshot());
        assertEquals("g", read.group());
        assertEquals(0, a.garbageCount());
    }

    @Test
    void aWriteBiggerThanOneMultiIsSplitAndAllOfItLands() throws Exception {
        EventLog log = new EventLog();
        ZooKeeperAdapter a = adapter(new ZooKeeperAdapter.Config(connectString, SESSION_TIMEOUT_MS, 1, 200, 1_000, true),
                log);
        int epoch = elect(a, log);
        List<ZkOp> ops = new ArrayList<>();
        Map<TopicPartition, Long> offsets = new TreeMap<>();
        for (int i = 0; i < 60; i++) {
            TopicPartition tp = TopicPartition.of("t" + (i % 3), "1-" + i);
            ops.add(new ZkOp.PutOffset("big", tp, i, "c"));
            offsets.put(tp, (long) i);
        }
        a.execute(new CoordinatorEffect.Write(1, epoch, true, ops));
        log.await(CoordinatorEvent.ZkWriteDone.class);
        a.execute(new CoordinatorEffect.Read(new ZkRead.Group("big")));
        assertEquals(offsets, log.await(GroupRead.class).snapshot().offsets());
    }

    @Test
    void aGroupOfManyNodesIsReadWholeInAFewBatchedRequests() throws Exception {
        Elected e = elected();
        Registration reg = ZnodeCodecTest.registrations().get(0);
        List<ZkOp> ops = new ArrayList<>(List.of(new ZkOp.PutGroup("wide", 2, "range"),
                new ZkOp.PutRegistration("wide", "c1", reg)));
        Map<TopicPartition, StreamId> owners = new TreeMap<>();
        Map<TopicPartition, Long> offsets = new TreeMap<>();
        int partitions = 3 * ReadJoin.MAX_BATCH_OPS; // owners and offsets: six batches' worth of data reads
        for (int i = 0; i < partitions; i++) {
            TopicPartition tp = TopicPartition.of("t" + (i % 2), "1-" + i);
            ops.add(new ZkOp.PutOwner("wide", tp, new StreamId("c1", 0), 2));
            ops.add(new ZkOp.PutOffset("wide", tp, i, "c1"));
            owners.put(tp, new StreamId("c1", 0));
            offsets.put(tp, (long) i);
        }
        e.adapter().execute(new CoordinatorEffect.Write(1, e.epoch(), true, ops));
        e.log().await(CoordinatorEvent.ZkWriteDone.class);

        long before = server.packetsReceived(e.adapter().sessionId());
        e.adapter().execute(new CoordinatorEffect.Read(new ZkRead.Group("wide")));
        GroupSnapshot read = e.log().await(GroupRead.class).snapshot();
        long requests = server.packetsReceived(e.adapter().sessionId()) - before;
        assertEquals(owners, read.owners());
        assertEquals(offsets, read.offsets());
        assertEquals(Map.of("c1", reg), read.registrations());
        // 2 × 768 + 8 nodes; one request each would be over 1,500. Batched: the watched ids read, one multi per
        // level of the tree and 256 nodes (about 12), and perhaps a heartbeat.
        assertTrue(requests <= 20, "the read took " + requests + " requests");
    }

    @Test
    void aTakeoverRehearsalReadsTheFirstGroupsWritesNothingArmsNoWatchAndReportsNothing() throws Exception {
        Elected e = elected();
        List<ZkOp> ops = new ArrayList<>();
        for (String g : List.of("a", "b", "c")) {
            ops.add(new ZkOp.PutGroup(g, 1, "range"));
            ops.add(new ZkOp.PutRegistration(g, "c1", ZnodeCodecTest.registrations().get(0)));
            ops.add(new ZkOp.PutOwner(g, TopicPartition.of("t", "1-0"), new StreamId("c1", 0), 1));
        }
        e.adapter().execute(new CoordinatorEffect.Write(1, e.epoch(), true, ops));
        e.log().await(CoordinatorEvent.ZkWriteDone.class);
        admin.create(ZkPaths.topic("t"), new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);

        EventLog standbyLog = new EventLog();
        ZooKeeperAdapter standby = adapter(2, standbyLog);
        Map<String, String> before = tree("/");
        assertEquals(new ZooKeeperAdapter.Rehearsal(2, true), standby.rehearseTakeover(2).get(10, TimeUnit.SECONDS),
                "groups a and b, in name order; the write refused at its epoch check");
        assertEquals(new ZooKeeperAdapter.Rehearsal(0, true), standby.rehearseTakeover(0).get(10, TimeUnit.SECONDS),
                "the topics alone, and the write of a group of one partition");
        assertEquals(before, tree("/"), "no node created, changed or deleted");

        // Every node those reads visited changes: a watch armed by them would fire now.
        admin.create(ZkPaths.ids("a") + "/c2", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        admin.create(ZkPaths.group("d"), new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        admin.create(ZkPaths.topic("u"), new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        admin.create(ZkPaths.topic("t") + "/1", ZnodeCodec.encodePartitions(2), Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT);
        e.adapter().execute(new CoordinatorEffect.Read(new ZkRead.Groups()));
        e.log().await(CoordinatorEvent.GroupsRead.class, 0, r -> r.groups().contains("d")); // the changes are made
        Thread.sleep(300);
        List<CoordinatorEvent> reported = standbyLog.events().stream()
                .filter(ev -> !(ev instanceof CoordinatorEvent.ZkSyncConnected)
                        && !(ev instanceof CoordinatorEvent.BrokersChanged)).toList();
        assertEquals(List.of(), reported, "no answer, no watch event reaches the standby's sink");
    }

    /** Every node below {@code path}: its data and versions, by path. */
    private Map<String, String> tree(String path) throws Exception {
        Map<String, String> nodes = new TreeMap<>();
        Stat stat = new Stat();
        byte[] data = admin.getData(path, false, stat);
        nodes.put(path, "version " + stat.getVersion() + ", cversion " + stat.getCversion() + ": "
                + (data == null ? "null" : new String(data, StandardCharsets.UTF_8)));
        for (String child : admin.getChildren(path, false)) {
            nodes.putAll(tree(path.equals("/") ? "/" + child : path + "/" + child));
        }
        return nodes;
    }

    @Test
    void aBatchTooLargeForOneAnswerIsReadOneNodeAtATimeNextTime() throws Exception {
        EventLog log = new EventLog();
        ZooKeeperAdapter a = adapter(1, log);
        int epoch = elect(a, log);
        TopicPartition good = TopicPartition.of("t", "1-0");
        a.execute(new CoordinatorEffect.Write(1, epoch, true, List.of(new ZkOp.PutGroup("huge", 1, "range"),
                new ZkOp.PutOwner("huge", good, new StreamId("c1", 0), 1))));
        log.await(CoordinatorEvent.ZkWriteDone.class);
        // Three hand-written nodes of 400 KB each: each one fits ZooKeeper's 1 MB limit, the three in one answer
        // do not, and the client drops the connection on reading it.
        byte[] junk = new byte[400 * 1024];
        java.util.Arrays.fill(junk, (byte) 'x');
        for (int i = 1; i <= 3; i++) {
            admin.create(ZkPaths.owners("huge") + "/t/1-" + i, junk, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        }

        a.execute(new CoordinatorEffect.Read(new ZkRead.Group("huge")));
        CoordinatorEvent.ZkReadFailed failed = log.await(CoordinatorEvent.ZkReadFailed.class);
        assertEquals(new ZkRead.Group("huge"), failed.read());
        log.await(CoordinatorEvent.ZkSyncConnected.class); // the same session, connected again

        a.execute(new CoordinatorEffect.Read(new ZkRead.Group("huge")));
        GroupSnapshot read = log.await(GroupRead.class).snapshot();
        assertEquals(Map.of(good, new StreamId("c1", 0)), read.owners());
        assertEquals(3, a.garbageCount()); // each giant is garbage, skipped; the rest is read
    }

    // ------------------------------------------------------------------ writes planned from what the session knows

    @Test
    void aWriteOfKnownNodesNeedsNoProbe() throws Exception {
        EventLog log = new EventLog();
        ZooKeeperAdapter a = adapter(1, log);
        int epoch = elect(a, log);
        a.execute(new CoordinatorEffect.Write(1, epoch, true, owners(1, 16)));
        log.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 1);
        long probes = a.probesSent();

        // A rebalance's owners write: every node was written by this session, so it is planned without a probe.
        a.execute(new CoordinatorEffect.Write(2, epoch, true, owners(2, 16)));
        log.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 2);
        assertEquals(probes, a.probesSent(), "probes for nodes the session wrote itself");

        // A read lists the group completely: a new registration (absent from the list) needs no probe either.
        a.execute(new CoordinatorEffect.Read(new ZkRead.Group("g")));
        log.await(GroupRead.class);
        a.execute(new CoordinatorEffect.Write(3, epoch, true, List.of(new ZkOp.PutRegistration("g", "c9",
                ZnodeCodecTest.registrations().get(0)))));
        log.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 3);
        assertEquals(probes, a.probesSent());
        assertEquals(16, admin.getChildren(ZkPaths.ownersOfTopic("g", "t"), false).size());
        assertEquals(2, ZnodeCodec.decodeOwner("o", admin.getData(ZkPaths.owner("g", partition(5)), false, null))
                .generation());
    }

    @Test
    void aWritePlannedOnStaleKnowledgeFailsIsProbedReplannedAndLandsBeforeAnythingLater() throws Exception {
        EventLog log = new EventLog();
        ZooKeeperAdapter a = adapter(1, log);
        int epoch = elect(a, log);
        List<ZkOp> first = new ArrayList<>(owners(1, 2));
        first.add(new ZkOp.PutOffset("g", partition(0), 10, "c"));
        a.execute(new CoordinatorEffect.Write(1, epoch, true, first));
        a.execute(new CoordinatorEffect.Read(new ZkRead.Group("g")));
        log.await(GroupRead.class);
        long probes = a.probesSent();

        // Behind the session's back (as `shepherd offsets reset` may, or a hand): a node it knows goes, one it knows
        // to be absent appears. A plan from that knowledge is wrong both ways.
        admin.delete(ZkPaths.offset("g", partition(0)), -1);
        admin.create(ZkPaths.offset("g", partition(1)), ZnodeCodec.encodeOffset(5), Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT);
        a.execute(new CoordinatorEffect.Write(2, epoch, true, List.of(new ZkOp.PutOffset("g", partition(0), 11, "c"),
                new ZkOp.PutOffset("g", partition(1), 6, "c"), new ZkOp.PutGroup("g", 2, "range"))));
        // Issued right behind the write: it must see the repaired write, not the tree before it.
        a.execute(new CoordinatorEffect.Read(new ZkRead.Group("g")));
        int done = log.indexOf(log.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 2));
        GroupRead read = log.await(GroupRead.class, done, r -> true);
        assertEquals(Map.of(partition(0), 11L, partition(1), 6L), read.snapshot().offsets());
        assertEquals(2, read.snapshot().generation());
        assertTrue(a.probesSent() > probes, "the failed plan was repaired by probing");
        assertEquals(List.of(), log.all(CoordinatorEvent.ZkWriteFailed.class));
        assertEquals(List.of(), log.all(CoordinatorEvent.ZkWriteFenced.class));
    }

    @Test
    void aWritePlannedFromKnowledgeWhoseAnswerIsLostIsReportedUnknownAndResolvedByReadingBack() throws Exception {
        try (CuttableProxy proxy = new CuttableProxy(server.connectString())) {
            EventLog log = new EventLog();
            ZooKeeperAdapter a = adapterBehind(proxy, log);
            int epoch = elect(a, log);
            a.execute(new CoordinatorEffect.Write(1, epoch, true, owners(1, 4)));
            log.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 1);
            long probes = a.probesSent();

            proxy.refuse(true);
            proxy.cut();
            log.await(CoordinatorEvent.ZkDisconnected.class);
            a.execute(new CoordinatorEffect.Write(2, epoch, true, owners(2, 4)));
            CoordinatorEvent.ZkWriteFailed failed = log.await(CoordinatorEvent.ZkWriteFailed.class);
            assertTrue(failed.unknownOutcome(), failed.toString());
            assertEquals(probes, a.probesSent(), "the multi itself was sent and lost, not a probe");

            // What the core does: read the group back once connected, then send what is missing again.
            proxy.refuse(false);
            log.await(CoordinatorEvent.ZkSyncConnected.class);
            a.execute(new CoordinatorEffect.Read(new ZkRead.Group("g")));
            GroupRead back = log.await(GroupRead.class);
            assertEquals(1, back.snapshot().generation(), "the lost multi did not commit");
            a.execute(new CoordinatorEffect.Write(3, epoch, true, owners(2, 4)));
            log.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 3);
            assertEquals(2, ZnodeCodec.decodeGroup("g", admin.getData(ZkPaths.group("g"), false, null))
                    .generation());
        }
    }

    @Test
    void aStaleEpochIsRefusedAtTheCheckWhateverTheSessionKnows() throws Exception {
        TwoBrokers two = broker1WinsBroker2Watches();
        EventLog logA = two.logA();
        EventLog logB = two.logB();
        ZooKeeperAdapter a = two.a();
        ZooKeeperAdapter b = two.b();
        int epochA = two.epochA();
        a.execute(new CoordinatorEffect.Write(1, epochA, true, owners(1, 4)));
        logA.await(CoordinatorEvent.ZkWriteDone.class, 0, d -> d.writeId() == 1);

        a.execute(new CoordinatorEffect.Resign(false));
        logB.await(ElectionWon.class);
        // The new coordinator changes the tree; a's knowledge of it is now stale as well as its epoch.
        admin.delete(ZkPaths.owner("g", partition(3)), -1);
        byte[] before = admin.getData(ZkPaths.group("g"), false, null);
        long probes = a.probesSent();

        a.execute(new CoordinatorEffect.Write(2, epochA, true, owners(2, 4)));
        logA.await(CoordinatorEvent.ZkWriteFenced.class, 0, f -> f.writeId() == 2);
        assertEquals(probes, a.probesSent(), "planned from what a knew, refused at op 0");
        assertArrayEquals(before, admin.getData(ZkPaths.group("g"), false, null));
        assertEquals(null, admin.exists(ZkPaths.owner("g", partition(3)), false));
        assertEquals(List.of(), logA.all(CoordinatorEvent.ZkWriteFailed.class));
    }

    /** Broker 1 won the election (epoch {@code epochA}); broker 2 ran too and watches it. */
    private record TwoBrokers(ZooKeeperAdapter a, EventLog logA, int epochA, ZooKeeperAdapter b, EventLog logB) {}

    private TwoBrokers broker1WinsBroker2Watches() throws Exception {
        EventLog logA = new EventLog();
        EventLog logB = new EventLog();
        ZooKeeperAdapter a = adapter(1, logA);
        int epochA = elect(a, logA);
        ZooKeeperAdapter b = adapter(2, logB);
        b.execute(new CoordinatorEffect.RunForElection());
        logB.await(LeaderObserved.class);
        return new TwoBrokers(a, logA, epochA, b, logB);
    }

    private static TopicPartition partition(int n) {
        return TopicPartition.of("t", "1-" + n);
    }

    /** A rebalance's write: generation and {@code count} owners of topic t. */
    private static List<ZkOp> owners(int generation, int count) {
        List<ZkOp> ops = new ArrayList<>();
        ops.add(new ZkOp.PutGroup("g", generation, "range"));
        for (int i = 0; i < count; i++) {
            ops.add(new ZkOp.PutOwner("g", partition(i), new StreamId("c" + (i % 2), 0), generation));
        }
        return ops;
    }

    @Test
    void watchesReArmOnEveryRead() throws Exception {
        EventLog log = new EventLog();
        ZooKeeperAdapter a = adapter(1, log);
        a.execute(new CoordinatorEffect.Read(new ZkRead.Topics()));
        log.await(CoordinatorEvent.TopicsRead.class);

        createTopic("t1", 1, 2);
        int firstChange = log.indexOf(log.await(CoordinatorEvent.TopicChange.class));
        a.execute(new CoordinatorEffect.Read(new ZkRead.Topics()));
        CoordinatorEvent.TopicsRead read = log.await(CoordinatorEvent.TopicsRead.class, firstChange, r -> true);
        assertEquals(List.of(new PartitionId(1, 0), new PartitionId(1, 1)), read.partitionsByTopic().get("t1"));

        createTopic("t2", 1, 1);
        log.await(CoordinatorEvent.TopicChange.class, firstChange + 1, c -> true);

        // A topic's broker node changing its partition count fires the topic's own listener.
        admin.setData(ZkPaths.topicBroker("t1", 1), ZnodeCodec.encodePartitions(3), -1);
        log.await(CoordinatorEvent.TopicPartitionChange.class, 0, c -> c.topic().equals("t1"));

        // Groups and members.
        a.execute(new CoordinatorEffect.Read(new ZkRead.Groups()));
        log.await(CoordinatorEvent.GroupsRead.class);
        a.execute(new CoordinatorEffect.Read(new ZkRead.Group("g")));
        log.await(GroupRead.class);
        admin.create(ZkPaths.group("g"), new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        log.await(CoordinatorEvent.GroupChange.class);
        admin.create(ZkPaths.ids("g"), new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        int created = log.indexOf(log.await(CoordinatorEvent.GroupMemberChange.class, 0, c -> c.group().equals("g")));
        a.execute(new CoordinatorEffect.Read(new ZkRead.Group("g")));
        log.await(GroupRead.class, created, r -> true);
        admin.create(ZkPaths.registration("g", "c1"), ZnodeCodec.encodeRegistration(
                ZnodeCodecTest.registrations().get(0)), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        int joined = log.indexOf(log.await(CoordinatorEvent.GroupMemberChange.class, created + 1,
                c -> c.group().equals("g")));

        // The member list alone (what the coordinator reads on a member change) re-arms the same watch.
        a.execute(new CoordinatorEffect.Read(new ZkRead.Members("g")));
        assertEquals(List.of("c1"), log.await(CoordinatorEvent.MembersRead.class).consumerIds());
        admin.delete(ZkPaths.registration("g", "c1"), -1);
        log.await(CoordinatorEvent.GroupMemberChange.class, joined + 1, c -> c.group().equals("g"));
    }

    @Test
    void garbageIsCountedAndSkippedWhileTheRestIsRead() throws Exception {
        EventLog log = new EventLog();
        ZooKeeperAdapter a = adapter(1, log);
        int epoch = elect(a, log);
        Registration good = ZnodeCodecTest.registrations().get(0);
        a.execute(new CoordinatorEffect.Write(1, epoch, true, List.of(new ZkOp.PutGroup("g", 1, "range"),
                new ZkOp.PutRegistration("g", "good", good), new ZkOp.PutRegistration("g", "bad", good))));
        log.await(CoordinatorEvent.ZkWriteDone.class);
        admin.setData(ZkPaths.registration("g", "bad"), "{\"version\":1,\"subscription\":".getBytes(
                StandardCharsets.UTF_8), -1);
        createTopic("ok", 1, 2);
        createTopic("broken", 1, 1);
        admin.setData(ZkPaths.topicBroker("broken", 1), new byte[] {(byte) 0xFF, 0, 1}, -1);

        a.execute(new CoordinatorEffect.Read(new ZkRead.Group("g")));
        assertEquals(Map.of("good", good), log.await(GroupRead.class).snapshot().registrations());
        a.execute(new CoordinatorEffect.Read(new ZkRead.Topics()));
        Map<String, List<PartitionId>> topics = log.await(CoordinatorEvent.TopicsRead.class).partitionsByTopic();
        assertEquals(List.of(new PartitionId(1, 0), new PartitionId(1, 1)), topics.get("ok"));
        assertEquals(List.of(), topics.get("broken"));
        assertEquals(2, a.garbageCount());

        // The same garbage read again is not counted (or logged) again.
        a.execute(new CoordinatorEffect.Read(new ZkRead.Group("g")));
        log.await(GroupRead.class, log.size() - 1, r -> true);
        assertEquals(2, a.garbageCount());
    }

    // ------------------------------------------------------------------ broker registry

    @Test
    void brokerIdsAreRegisteredListedAndDuplicatesRefused() throws Exception {
        EventLog logA = new EventLog();
        ZooKeeperAdapter a = adapter(1, logA);
        BrokerInfo one = new BrokerInfo(1, "host-a", 9092, "host-a-1");
        a.registerBroker(one).get(15, TimeUnit.SECONDS);
        logA.await(CoordinatorEvent.BrokersChanged.class, 0, c -> c.brokers().equals(List.of(one)));

        EventLog logB = new EventLog();
        ZooKeeperAdapter b = adapter(2, logB);
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> b.registerBroker(new BrokerInfo(1, "host-b", 9092, "host-b-1")).get(15, TimeUnit.SECONDS));
        DuplicateBrokerIdException duplicate = assertInstanceOf(DuplicateBrokerIdException.class, e.getCause());
        assertEquals(1, duplicate.brokerId());
        assertEquals(a.sessionId(), duplicate.ownerSessionId());
        assertTrue(duplicate.getMessage().contains("broker id 1"), duplicate.getMessage());

        BrokerInfo two = new BrokerInfo(2, "host-b", 9093, "host-b-1");
        b.registerBroker(two).get(15, TimeUnit.SECONDS);
        logA.await(CoordinatorEvent.BrokersChanged.class, 0, c -> c.brokers().equals(List.of(one, two)));
    }

    /**
     * A broker registration nobody can read (truncated JSON, or bytes that are not UTF-8) is garbage left by some
     * other writer: it must be counted and skipped, not hide the brokers that are readable, since the coordinator's
     * Consult answers and the broker list come from the same read.
     */
    @Test
    void garbageInABrokerRegistrationIsSkippedAndTheOthersAreListed() throws Exception {
        EventLog log = new EventLog();
        ZooKeeperAdapter a = adapter(1, log);
        BrokerInfo one = new BrokerInfo(1, "host-a", 9092, "host-a-1");
        a.registerBroker(one).get(15, TimeUnit.SECONDS);
        int first = log.indexOf(log.await(CoordinatorEvent.BrokersChanged.class, 0,
                c -> c.brokers().equals(List.of(one))));
        long garbageBefore = a.garbageCount();

        admin.create(ZkPaths.broker(99), "{\"version\":1,\"host\":".getBytes(StandardCharsets.UTF_8),
                Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        admin.create(ZkPaths.broker(98), new byte[] {'{', (byte) 0xC3, (byte) 0x28, (byte) 0xFF, '}'},
                Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);

        // Every list read after the garbage appeared names broker 1 alone.
        CoordinatorEvent.BrokersChanged after = log.await(CoordinatorEvent.BrokersChanged.class, first + 1, c -> true);
        assertEquals(List.of(one), after.brokers());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (a.garbageCount() < garbageBefore + 2 && System.nanoTime() < deadline) {
            Thread.sleep(20); // polling interval of a condition with a deadline
        }
        assertEquals(garbageBefore + 2, a.garbageCount(), "both bad registrations counted once");
        // From the first list naming broker 1 on: a list read before our registration landed (the session can be
        // established, and the list read, before registerBroker is called) is empty, and is not what this tests.
        List<CoordinatorEvent> events = log.events();
        for (CoordinatorEvent e : events.subList(first, events.size())) {
            if (e instanceof CoordinatorEvent.BrokersChanged c) {
                assertEquals(List.of(one), c.brokers(), events.toString());
            }
        }
    }

    @Test
    void aRestartWaitsForThePreviousProcessesSessionToGoInsteadOfRefusing() throws Exception {
        // The previous process of broker 3 crashed a moment ago: its session (and node) still live.
        EventLog logOld = new EventLog();
        ZooKeeperAdapter previous = adapter(3, logOld);
        previous.registerBroker(new BrokerInfo(3, "host-c", 9092, "host-c-started-1")).get(15, TimeUnit.SECONDS);

        EventLog log = new EventLog();
        ZooKeeperAdapter restarted = adapter(3, log);
        var registered = restarted.registerBroker(new BrokerInfo(3, "host-c", 9092, "host-c-started-2"));
        awaitOwner(ZkPaths.broker(3), previous.sessionId());
        assertTrue(!registered.isDone(), "still waiting while the old session lives");
        previous.close(); // its session ends (ZooKeeper would expire it within the session timeout)
        registered.get(15, TimeUnit.SECONDS);
        awaitOwner(ZkPaths.broker(3), restarted.sessionId());
    }

    @Test
    void aNodeLeftByThisProcessIsReplaced() throws Exception {
        // A node of this process's creator id under another session: our own earlier incarnation's leftover.
        ZooKeeper previous = connect(connectString);
        BrokerInfo info = new BrokerInfo(7, "h", 1, "h-123");
        previous.create("/brokers", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        previous.create(ZkPaths.BROKER_IDS, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        previous.create(ZkPaths.broker(7), ZnodeCodec.encodeBroker(info), Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        ZooKeeperAdapter a = adapter(7, new EventLog());
        a.registerBroker(info).get(15, TimeUnit.SECONDS);
        assertEquals(a.sessionId(), admin.exists(ZkPaths.broker(7), false).getEphemeralOwner());
        previous.close();
    }

    // ------------------------------------------------------------------ helpers

    @Test
    void anElectionNodeLeftByAnEarlierSessionOfThisBrokerIsRemoved() throws Exception {
        // An earlier process of broker 7 won and was restarted before its session expired: the node is still there.
        ZooKeeper earlier = connect(connectString);
        earlier.create("/consumers", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        earlier.create(ZkPaths.COORDINATOR, ZnodeCodec.encodeCoordinator(7), Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL);
        try {
            EventLog log = new EventLog();
            ZooKeeperAdapter a = adapter(7, log);
            long started = System.currentTimeMillis();
            a.execute(new CoordinatorEffect.RunForElection());
            CoordinatorEvent.ElectionWon won = log.await(CoordinatorEvent.ElectionWon.class);
            assertTrue(System.currentTimeMillis() - started < SESSION_TIMEOUT_MS,
                    "won without waiting for the earlier session to expire");
            assertEquals(a.sessionId(), admin.exists(ZkPaths.COORDINATOR, false).getEphemeralOwner());
            assertTrue(won.epoch() >= 1);
        } finally {
            earlier.close();
        }
    }

    @Test
    void anElectionNodeOfAnotherBrokerIsLeftAlone() throws Exception {
        ZooKeeper other = connect(connectString);
        other.create("/consumers", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        other.create(ZkPaths.COORDINATOR, ZnodeCodec.encodeCoordinator(8), Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        try {
            EventLog log = new EventLog();
            ZooKeeperAdapter a = adapter(7, log);
            a.execute(new CoordinatorEffect.RunForElection());
            log.await(CoordinatorEvent.LeaderObserved.class);
            assertEquals(other.getSessionId(), admin.exists(ZkPaths.COORDINATOR, false).getEphemeralOwner());
            assertEquals(List.of(), log.all(CoordinatorEvent.ElectionWon.class));
        } finally {
            other.close();
        }
    }

    private void createTopic(String topic, int brokerId, int partitions) throws Exception {
        admin.create(ZkPaths.topic(topic), new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        admin.create(ZkPaths.topicBroker(topic, brokerId), ZnodeCodec.encodePartitions(partitions),
                Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    private void awaitOwner(String path, long session) throws Exception {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (System.nanoTime() < deadline) {
            CountDownLatch changed = new CountDownLatch(1);
            Stat stat = admin.exists(path, e -> changed.countDown());
            if (stat != null && stat.getEphemeralOwner() == session) {
                return;
            }
            changed.await(1, TimeUnit.SECONDS);
        }
        throw new AssertionError(path + " not owned by session 0x" + Long.toHexString(session));
    }

    private static ZooKeeper connect(String connectString) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, SESSION_TIMEOUT_MS, event -> {
            if (event.getState() == KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertTrue(connected.await(20, TimeUnit.SECONDS), "no session with " + connectString);
        return zk;
    }
}
