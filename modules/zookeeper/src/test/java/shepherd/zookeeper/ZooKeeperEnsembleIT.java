package shepherd.zookeeper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.LongToIntFunction;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent;
import shepherd.coordination.CoordinatorEvent.ElectionWon;
import shepherd.coordination.CoordinatorEvent.GroupsRead;
import shepherd.coordination.CoordinatorEvent.LeaderObserved;
import shepherd.coordination.CoordinatorEvent.ZkDisconnected;
import shepherd.coordination.CoordinatorEvent.ZkExpired;
import shepherd.coordination.CoordinatorEvent.ZkSyncConnected;
import shepherd.coordination.CoordinatorEvent.ZkSynced;
import shepherd.coordination.CoordinatorEvent.ZkWriteDone;
import shepherd.coordination.CoordinatorEvent.ZkWriteFailed;
import shepherd.coordination.CoordinatorEvent.ZkWriteFenced;
import shepherd.coordination.ZkOp;
import shepherd.coordination.ZkRead;
import shepherd.coordination.assign.TopicPartition;
import shepherd.protocol.BrokerInfo;

/**
 * The adapter against a real three-member ZooKeeper ensemble ({@link EmbeddedEnsemble}), for what one standalone
 * server cannot show: a client failing over to another member with its session intact when the member it talks to
 * dies, and session expiry decided by a quorum while the adapter has a write in flight or is still re-electing.
 *
 * <p>Each adapter has its own event log and its own clock (offset from the others, so a stamp taken from the wrong
 * clock would show). Every wait is on a condition with a deadline, never a fixed sleep. Each test works under its own
 * chroot; a member stopped by a test is restarted after it.
 */
class ZooKeeperEnsembleIT {
    private static final int SESSION_TIMEOUT_MS = 4_000;
    private static final long WAIT_MS = 15_000;
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperEnsembleIT.class);
    private static final AtomicInteger CHROOTS = new AtomicInteger();

    private static EmbeddedEnsemble ensemble;
    private ZooKeeper admin;
    private String connectString;
    private final List<ZooKeeperAdapter> adapters = new ArrayList<>();

    @BeforeAll
    static void startEnsemble() {
        ensemble = EmbeddedEnsemble.start(3);
    }

    @AfterAll
    static void stopEnsemble() {
        if (ensemble != null) {
            ensemble.close();
        }
    }

    @BeforeEach
    void chroot() throws Exception {
        String chroot = "/ens" + CHROOTS.incrementAndGet();
        ZooKeeper root = connect(ensemble.connectString());
        root.create(chroot, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        root.close();
        connectString = ZkPaths.connectString(ensemble.connectString(), chroot);
        admin = connect(connectString);
    }

    @AfterEach
    void closeAll() throws Exception {
        adapters.forEach(ZooKeeperAdapter::close);
        admin.close();
        for (int i = 0; i < ensemble.size(); i++) {
            if (!ensemble.isRunning(i)) {
                ensemble.restart(i);
            }
        }
    }

    /** An adapter with its own log and its own clock: wall time shifted by {@code brokerId} hours. */
    private ZooKeeperAdapter adapter(int brokerId, EventLog log) {
        long offset = brokerId * 3_600_000L;
        LongSupplier clock = () -> System.currentTimeMillis() + offset;
        ZooKeeperAdapter adapter = ZooKeeperAdapter.open(
                ZooKeeperAdapter.Config.of(connectString, SESSION_TIMEOUT_MS, brokerId), log::accept, clock);
        log.tagWith(adapter::sessionId);
        adapters.add(adapter);
        return adapter;
    }

    private static long clockOf(int brokerId) {
        return System.currentTimeMillis() + brokerId * 3_600_000L;
    }

    // ------------------------------------------------------------------ election

    @Test
    void exactlyOneOfThreeWinsOnTheEnsemble() throws Exception {
        List<EventLog> logs = List.of(new EventLog(), new EventLog(), new EventLog());
        for (int i = 0; i < 3; i++) {
            adapter(i + 1, logs.get(i)).execute(new CoordinatorEffect.RunForElection());
        }
        for (EventLog log : logs) {
            log.await(CoordinatorEvent.class, 0, e -> e instanceof ElectionWon || e instanceof LeaderObserved);
        }
        List<Integer> winners = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            if (!logs.get(i).all(ElectionWon.class).isEmpty()) {
                winners.add(i);
            }
        }
        assertEquals(1, winners.size(), "winners " + winners);
        int winner = winners.get(0);
        List<ElectionWon> won = logs.get(winner).all(ElectionWon.class);
        assertEquals(1, won.size(), won.toString());
        int epoch = won.get(0).epoch();
        sync();
        assertEquals(epoch, admin.exists(ZkPaths.EPOCH, false).getVersion(), "epoch = data version");
        assertEquals(adapters.get(winner).sessionId(), admin.exists(ZkPaths.COORDINATOR, false).getEphemeralOwner());
        for (int i = 0; i < 3; i++) {
            if (i != winner) {
                assertEquals(new LeaderObserved(winner + 1, epoch), logs.get(i).await(LeaderObserved.class));
            }
        }
    }

    // ------------------------------------------------------------------ member loss

    /**
     * The member the coordinator's client talks to dies; the client moves to another member within the session
     * timeout. That is a disconnection, not an expiry: the same session, the same election node, the same epoch, and
     * fenced writes under that epoch keep working.
     */
    @Test
    void losingTheConnectedMemberIsADisconnectionOnTheSameSession() throws Exception {
        memberLossIsADisconnection(session -> ensemble.memberServing(session), true);
    }

    /**
     * The leader dies: the followers drop every client while they elect a new leader, so this is the longest outage
     * a single member loss causes. With the session timeout above the ensemble's election time it is still only a
     * disconnection.
     */
    @Test
    void losingTheLeaderIsADisconnectionOnTheSameSession() throws Exception {
        memberLossIsADisconnection(session -> ensemble.leader(), false);
    }

    private void memberLossIsADisconnection(LongToIntFunction memberToStop, boolean movesAway)
            throws Exception {
        EventLog logA = new EventLog();
        EventLog logB = new EventLog();
        ZooKeeperAdapter a = adapter(1, logA);
        a.execute(new CoordinatorEffect.RunForElection());
        int epoch = logA.await(ElectionWon.class).epoch();
        ZooKeeperAdapter b = adapter(2, logB);
        b.execute(new CoordinatorEffect.RunForElection());
        logB.await(LeaderObserved.class);
        long session = a.sessionId();
        int connectedTo = awaitMemberServing(session);
        int[] member = {-1};
        awaitTrue(() -> (member[0] = memberToStop.applyAsInt(session)) >= 0, "a member to stop");
        boolean connectedToIt = member[0] == connectedTo;

        long stoppedAtMs = clockOf(1);
        int before = logA.size();
        long stoppedAtNanos = System.nanoTime();
        ensemble.stop(member[0]);

        int disconnected = logA.indexOf(logA.await(ZkDisconnected.class, before, e -> true));
        ZkSyncConnected back = logA.await(ZkSyncConnected.class, disconnected, e -> true);
        long outageMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAtNanos);
        LOG.info(
                "member {} stopped ({}connected to it): back on the same session after {} ms", member[0] + 1,
                connectedToIt ? "" : "not ", outageMs);
        assertTrue(back.sentAtMs() >= stoppedAtMs, "sentAtMs " + back.sentAtMs() + " before the stop " + stoppedAtMs);
        assertEquals(session, a.sessionId(), "the same session continues");
        int now = awaitMemberServing(session);
        if (movesAway) {
            assertNotEquals(member[0], now, "moved to another member");
        }

        // Fenced write under the unchanged epoch, after the reconnection.
        a.execute(new CoordinatorEffect.Write(1, epoch, true, List.of(new ZkOp.PutGroup("g", 1, "range"))));
        logA.await(ZkWriteDone.class, 0, d -> d.writeId() == 1);
        sync();
        assertNotNull(admin.exists(ZkPaths.group("g"), false));

        assertEquals(List.of(), logA.all(ZkExpired.class), logA.events().toString());
        assertEquals(1, logA.all(ElectionWon.class).size(), "no second election: " + logA.events());
        assertEquals(List.of(), logB.all(ElectionWon.class), "the other candidate never won: " + logB.events());
        assertEquals(List.of(), logB.all(ZkExpired.class), logB.events().toString());
        assertEquals(epoch, admin.exists(ZkPaths.EPOCH, false).getVersion(), "epoch unchanged");
        assertEquals(session, admin.exists(ZkPaths.COORDINATOR, false).getEphemeralOwner());
        assertEquals(List.of(), logA.all(ZkWriteFenced.class));
    }

    // ------------------------------------------------------------------ expiry

    /**
     * The coordinator's session is expired by the ensemble's leader (as its timeout would) while writes of it are in
     * flight: a train of fenced writes, the session ended as soon as the first is answered, so later ones are caught
     * probing, with their multi out, or still queued. Whatever became of each, nothing of the old epoch lands after
     * the new coordinator bumped the epoch: a write committed before the session ended, or not at all; and no answer
     * of the old session follows its ZkExpired.
     */
    @Test
    void leaderSideExpiryWithWritesInFlightNeverLetsTheOldEpochWriteAfterTheBump() throws Exception {
        expiryWithWritesInFlight(false);
    }

    /**
     * The same with the session ended by a second handle on it, closed. Opening that handle already takes the
     * connection away from the adapter's client (the server keeps one connection per session), so the writes in
     * flight then mostly fail with a connection loss just before the expiry.
     */
    @Test
    void cloneSideExpiryWithWritesInFlightNeverLetsTheOldEpochWriteAfterTheBump() throws Exception {
        expiryWithWritesInFlight(true);
    }

    private void expiryWithWritesInFlight(boolean byClone) throws Exception {
        EventLog logA = new EventLog();
        EventLog logB = new EventLog();
        ZooKeeperAdapter a = adapter(1, logA);
        a.execute(new CoordinatorEffect.RunForElection());
        int epochA = logA.await(ElectionWon.class).epoch();
        ZooKeeperAdapter b = adapter(2, logB);
        b.execute(new CoordinatorEffect.RunForElection());
        logB.await(LeaderObserved.class);
        long oldSession = a.sessionId();

        // A clone is connected first so that its close follows the first answer as closely as possible.
        ZooKeeper clone = byClone ? cloneOf(a) : null;
        int writes = 20;
        for (int w = 1; w <= writes; w++) {
            List<ZkOp> ops = new ArrayList<>();
            ops.add(new ZkOp.PutGroup("g" + w, w, "range"));
            for (int i = 0; i < 10; i++) {
                ops.add(new ZkOp.PutOffset("g" + w, TopicPartition.of("t", "1-" + i), 100 + i, "c"));
            }
            a.execute(new CoordinatorEffect.Write(w, epochA, true, ops));
        }
        logA.await(CoordinatorEvent.class, 0, e -> e instanceof ZkWriteDone || e instanceof ZkWriteFailed);
        if (byClone) {
            clone.close();
        } else {
            ensemble.expireSession(oldSession);
        }

        ZkExpired expired = logA.await(ZkExpired.class);
        int expiredAt = logA.indexOf(expired);
        a.execute(new CoordinatorEffect.RunForElection()); // what the core does on ZkExpired
        int epochB = logB.await(ElectionWon.class).epoch();
        assertTrue(epochB > epochA, epochB + " after " + epochA);
        LeaderObserved seen = logA.await(LeaderObserved.class, expiredAt, o -> o.epoch() == epochB);
        assertEquals(new LeaderObserved(2, epochB), seen);

        // Every write answer of the old session precedes its ZkExpired; none was fenced (the epoch held till then).
        List<EventLog.Entry> entries = logA.entries();
        List<Long> done = new ArrayList<>();
        List<String> outcomes = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            CoordinatorEvent e = entries.get(i).event();
            if (e instanceof ZkWriteDone || e instanceof ZkWriteFailed || e instanceof ZkWriteFenced) {
                assertTrue(i < expiredAt, "write answer of the old session after ZkExpired: " + entries);
                outcomes.add(e.toString());
            }
            if (e instanceof ZkWriteDone d) {
                done.add(d.writeId());
            }
        }
        assertEquals(List.of(), logA.all(ZkWriteFenced.class));
        LOG.info("expiry by {}: of {} writes in flight {} were answered ({}), the rest dropped with the session",
                byClone ? "a second handle" : "the leader", writes, outcomes.size(), outcomes);
        assertSessionsInOrder(logA, oldSession);

        // The data: whatever of epoch A is there was written before epoch B was taken; every write reported done is.
        sync();
        Stat epochStat = admin.exists(ZkPaths.EPOCH, false);
        assertEquals(epochB, epochStat.getVersion());
        for (int w = 1; w <= writes; w++) {
            String group = ZkPaths.group("g" + w);
            Stat stat = admin.exists(group, false);
            if (done.contains((long) w)) {
                assertNotNull(stat, "write " + w + " was reported done but is not in the tree");
                assertEquals(new ZnodeCodec.GroupValue(w, "range"),
                        ZnodeCodec.decodeGroup(group, admin.getData(group, false, null)));
            }
            assertOldEpochDataPrecedes(group, epochStat.getMzxid());
            for (String topic : childrenOrEmpty(ZkPaths.offsets("g" + w))) {
                String topicPath = ZkPaths.offsets("g" + w) + "/" + topic;
                assertOldEpochDataPrecedes(topicPath, epochStat.getMzxid());
                for (String partition : childrenOrEmpty(topicPath)) {
                    assertOldEpochDataPrecedes(topicPath + "/" + partition, epochStat.getMzxid());
                }
            }
        }

        // And the deposed adapter, on its new session, is fenced under the old epoch.
        a.execute(new CoordinatorEffect.Write(99, epochA, true, List.of(new ZkOp.PutGroup("g1", 8, "sticky"))));
        logA.await(ZkWriteFenced.class, 0, f -> f.writeId() == 99);
        sync();
        Stat g1 = admin.exists(ZkPaths.group("g1"), false);
        assertTrue(g1 == null || g1.getMzxid() < epochStat.getMzxid(), "a fenced write changed g1");
    }

    /**
     * The same adapter's session is ended twice in a row, the second time as soon as its new session exists (while
     * it runs for election again). It must come out with a working session, its events in session order, and the
     * adapters with exactly one coordinator whose epoch is above every earlier one.
     */
    @Test
    void backToBackExpiriesWithARivalEndWithOneCoordinatorAndRisingEpochs() throws Exception {
        backToBackExpiries(true, false);
    }

    /**
     * Without a rival the expired adapter wins again on its second session and is expired there too, right after or
     * while winning; its third session must win once more, with a higher epoch.
     */
    @Test
    void backToBackExpiriesAloneEndWithOneCoordinatorAndRisingEpochs() throws Exception {
        backToBackExpiries(false, false);
    }

    /**
     * The same, the second session expired by the leader: no second handle takes its connection away first, so its
     * election runs on until the expiry meets it (often just after it won).
     */
    @Test
    void backToBackExpiriesAloneTheSecondByTheLeaderEndWithOneCoordinatorAndRisingEpochs() throws Exception {
        backToBackExpiries(false, true);
    }

    /**
     * A session whose member keeps its connection though the ensemble has ended it answers reads and never reports
     * an expiry; only its writes say {@code SESSIONEXPIRED}. The first such answer must end the session as the
     * {@code Expired} event would: ZkExpired, a new session, the broker registered again and a new win possible.
     */
    @Test
    void aWriteAnsweredSessionExpiredOnALiveConnectionEndsTheSession() throws Exception {
        EventLog log = new EventLog();
        ZooKeeperAdapter a = adapterOnAFollower(log);
        long session1 = a.sessionId();

        ensemble.forgetSessionAtLeader(session1);
        int mark = log.size();
        a.execute(new CoordinatorEffect.Read(new ZkRead.Groups())); // a read: still answered, the connection is up
        log.await(GroupsRead.class, mark, e -> true);
        a.execute(new CoordinatorEffect.RunForElection()); // its multi is a write

        ZkExpired expired = log.await(ZkExpired.class, mark, e -> true);
        a.execute(new CoordinatorEffect.RunForElection()); // what the core does on ZkExpired
        ElectionWon won = log.await(ElectionWon.class, log.indexOf(expired), w -> true);
        long session2 = a.sessionId();
        assertNotEquals(session1, session2);
        assertEquals(1, log.all(ZkExpired.class).size(), log.events().toString());
        assertSessionsInOrder(log, session1, session2);
        awaitOwner(ZkPaths.broker(1), session2); // the node the forgotten session left was ours: replaced
        awaitOwner(ZkPaths.COORDINATOR, session2);
        sync();
        assertEquals(won.epoch(), admin.exists(ZkPaths.EPOCH, false).getVersion());
    }

    /**
     * In the state above a read is still answered, so a keep-alive made of a read ({@code exists}, as it was; even
     * {@code sync}) would keep DESIGN §5's live-session bound fresh on a session the ensemble has ended, for as long
     * as no write happens: the coordinator would go on granting leases while another broker is elected. The
     * keep-alive passes the leader's session check (a multi of one version check), so it ends such a session
     * instead of answering ZkSynced.
     */
    @Test
    void aKeepAliveOnASessionEndedAtTheLeaderEndsIt() throws Exception {
        EventLog log = new EventLog();
        ZooKeeperAdapter a = adapterOnAFollower(log);
        long session1 = a.sessionId();
        int mark = log.size();
        a.execute(new CoordinatorEffect.KeepAlive()); // on a live session: answered
        log.await(ZkSynced.class, mark, e -> true);

        ensemble.forgetSessionAtLeader(session1);
        mark = log.size();
        a.execute(new CoordinatorEffect.KeepAlive());

        log.await(ZkExpired.class, mark, e -> true);
        List<CoordinatorEvent> after = log.events().subList(mark, log.size());
        assertTrue(after.stream().noneMatch(ZkSynced.class::isInstance), after.toString());
        assertNotEquals(session1, awaitNewSession(a, session1));
    }

    /** An adapter connected to a member that is not the leader, its broker registered. */
    private ZooKeeperAdapter adapterOnAFollower(EventLog log) throws Exception {
        int follower = (ensemble.leader() + 1) % ensemble.size();
        String chroot = connectString.substring(connectString.indexOf('/'));
        ZooKeeperAdapter a = ZooKeeperAdapter.open(ZooKeeperAdapter.Config.of(ensemble.connectString(follower)
                + chroot, SESSION_TIMEOUT_MS, 1), log::accept, () -> clockOf(1));
        log.tagWith(a::sessionId);
        adapters.add(a);
        a.registerBroker(new BrokerInfo(1, "h", 9092, "h-1")).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertEquals(follower, ensemble.memberServing(a.sessionId()));
        return a;
    }

    private void backToBackExpiries(boolean rivalFromStart, boolean secondByLeader) throws Exception {
        EventLog logA = new EventLog();
        EventLog logB = new EventLog();
        ZooKeeperAdapter a = adapter(1, logA);
        a.registerBroker(new BrokerInfo(1, "h", 9092, "h-1")).get(WAIT_MS, TimeUnit.MILLISECONDS);
        a.execute(new CoordinatorEffect.RunForElection());
        int firstEpoch = logA.await(ElectionWon.class).epoch();
        ZooKeeperAdapter b = null;
        if (rivalFromStart) {
            b = adapter(2, logB);
            b.execute(new CoordinatorEffect.RunForElection());
            logB.await(LeaderObserved.class);
        }

        long session1 = a.sessionId();
        expire(a);
        ZkExpired first = logA.await(ZkExpired.class);
        a.execute(new CoordinatorEffect.RunForElection());

        long session2 = awaitNewSession(a, session1);
        if (secondByLeader) {
            ensemble.expireSession(session2);
        } else {
            expire(a);
        }
        logA.await(ZkExpired.class, logA.indexOf(first) + 1, e -> true);
        a.execute(new CoordinatorEffect.RunForElection());
        long session3 = awaitNewSession(a, session2);
        if (!rivalFromStart) {
            b = adapter(2, logB);
            b.execute(new CoordinatorEffect.RunForElection());
        }

        // A working session: a keep-alive answered on it.
        int mark = logA.size();
        a.execute(new CoordinatorEffect.KeepAlive());
        logA.await(ZkSynced.class, mark, e -> true);
        assertEquals(session3, a.sessionId());
        assertEquals(2, logA.all(ZkExpired.class).size(), logA.events().toString());
        assertSessionsInOrder(logA, session1, session2, session3);
        awaitOwner(ZkPaths.broker(1), session3); // the broker registration followed the sessions

        // Exactly one coordinator: the election node's owner, with the current epoch; nobody else holds the role.
        sync();
        Stat coordinator = awaitCoordinatorNode();
        int epoch = admin.exists(ZkPaths.EPOCH, false).getVersion();
        long owner = coordinator.getEphemeralOwner();
        assertTrue(owner == session3 || owner == b.sessionId(), "owner 0x" + Long.toHexString(owner));
        EventLog winnerLog = owner == session3 ? logA : logB;
        EventLog otherLog = owner == session3 ? logB : logA;
        int winnerId = owner == session3 ? 1 : 2;
        ElectionWon last = winnerLog.await(ElectionWon.class, 0, w -> w.epoch() == epoch);
        assertEquals(last, winnerLog.all(ElectionWon.class).get(winnerLog.all(ElectionWon.class).size() - 1));
        otherLog.await(LeaderObserved.class, 0, o -> o.equals(new LeaderObserved(winnerId, epoch)));
        assertTrue(otherLog.all(ElectionWon.class).stream().allMatch(w -> w.epoch() < epoch),
                "a stale win above the current epoch: " + otherLog.events());

        // Epochs strictly rise: within each adapter, and no epoch was won twice.
        List<Integer> all = new ArrayList<>();
        for (EventLog log : List.of(logA, logB)) {
            List<Integer> won = log.all(ElectionWon.class).stream().map(ElectionWon::epoch).toList();
            for (int i = 1; i < won.size(); i++) {
                assertTrue(won.get(i) > won.get(i - 1), "epochs not rising: " + won);
            }
            all.addAll(won);
        }
        assertEquals(all.size(), all.stream().distinct().count(), "an epoch won twice: " + all);
        assertEquals(epoch, all.stream().mapToInt(Integer::intValue).max().orElseThrow());
        assertTrue(epoch > firstEpoch);
        LOG.info("back-to-back expiries ({}{}): sessions 0x{}, 0x{}, 0x{}; wins of broker 1 {}, of broker 2 {}",
                rivalFromStart ? "with a rival" : "alone", secondByLeader ? ", the second by the leader" : "",
                Long.toHexString(session1), Long.toHexString(session2),
                Long.toHexString(session3), logA.all(ElectionWon.class), logB.all(ElectionWon.class));

        // The coordinator can write under its epoch, and the other is fenced under any earlier one.
        ZooKeeperAdapter winner = winnerId == 1 ? a : b;
        winner.execute(new CoordinatorEffect.Write(10, epoch, true, List.of(new ZkOp.PutGroup("g", 1, "range"))));
        winnerLog.await(ZkWriteDone.class, 0, d -> d.writeId() == 10);
        ZooKeeperAdapter other = winnerId == 1 ? b : a;
        other.execute(new CoordinatorEffect.Write(11, firstEpoch, true, List.of(new ZkOp.PutGroup("g", 2, "range"))));
        otherLog.await(ZkWriteFenced.class, 0, f -> f.writeId() == 11);
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Every event carries the session current when it was enqueued; the sessions must appear in the given order,
     * each ZkExpired must be the last event of its session, and nothing of a later session may precede it.
     */
    private static void assertSessionsInOrder(EventLog log, long... sessions) {
        List<EventLog.Entry> entries = log.entries();
        int current = 0;
        for (EventLog.Entry entry : entries) {
            int at = indexOf(sessions, entry.sessionId());
            if (at < 0 && sessions.length > 0 && entry.sessionId() != 0) {
                // A session after the last listed one: fine only after the last listed session expired.
                at = sessions.length;
            }
            assertTrue(at >= current, "event of an earlier session after a later one: " + entries);
            current = at;
            if (entry.event() instanceof ZkExpired) {
                current = at + 1;
            }
        }
    }

    private static int indexOf(long[] sessions, long id) {
        for (int i = 0; i < sessions.length; i++) {
            if (sessions[i] == id) {
                return i;
            }
        }
        return -1;
    }

    /** An old-epoch node must have last changed before the epoch node's newest change (the new coordinator's bump). */
    private void assertOldEpochDataPrecedes(String path, long epochMzxid) throws Exception {
        Stat stat = admin.exists(path, false);
        if (stat != null) {
            assertTrue(stat.getMzxid() < epochMzxid, path + " changed at zxid 0x" + Long.toHexString(stat.getMzxid())
                    + " after the epoch bump at 0x" + Long.toHexString(epochMzxid));
        }
    }

    private void awaitOwner(String path, long session) throws Exception {
        awaitTrue(() -> {
            try {
                Stat stat = admin.exists(path, false);
                return stat != null && stat.getEphemeralOwner() == session;
            } catch (Exception e) {
                return false;
            }
        }, path + " owned by session 0x" + Long.toHexString(session));
    }

    /**
     * The test's own session may be on a member that has not applied the adapters' latest writes yet (ZooKeeper
     * orders each session's view, not all sessions'): a sync brings it up to the leader before the test reads.
     */
    private void sync() throws Exception {
        CountDownLatch synced = new CountDownLatch(1);
        admin.sync("/", (rc, path, ctx) -> synced.countDown(), null);
        assertTrue(synced.await(WAIT_MS, TimeUnit.MILLISECONDS), "no sync");
    }

    private List<String> childrenOrEmpty(String path) throws Exception {
        return admin.exists(path, false) == null ? List.of() : admin.getChildren(path, false);
    }

    private Stat awaitCoordinatorNode() throws Exception {
        awaitTrue(() -> {
            try {
                return admin.exists(ZkPaths.COORDINATOR, false) != null;
            } catch (Exception e) {
                return false;
            }
        }, "an election node");
        return admin.exists(ZkPaths.COORDINATOR, false);
    }

    private static int awaitMemberServing(long session) throws Exception {
        int[] member = {-1};
        awaitTrue(() -> (member[0] = ensemble.memberServing(session)) >= 0,
                "a member serving session 0x" + Long.toHexString(session));
        return member[0];
    }

    private static long awaitNewSession(ZooKeeperAdapter adapter, long previous) throws Exception {
        long[] id = {0};
        awaitTrue(() -> {
            id[0] = adapter.sessionId();
            return id[0] != 0 && id[0] != previous;
        }, "a session after 0x" + Long.toHexString(previous));
        return id[0];
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("no " + what + " within " + WAIT_MS + " ms; ensemble " + ensemble);
            }
            Thread.sleep(5); // a polling interval, not a wait for an outcome
        }
    }

    /** Ends the adapter's current session on the server side: a second handle on it, closed. */
    private void expire(ZooKeeperAdapter adapter) throws Exception {
        cloneOf(adapter).close();
    }

    private ZooKeeper cloneOf(ZooKeeperAdapter adapter) throws Exception {
        long session = adapter.sessionId();
        byte[] password = adapter.sessionPassword();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper clone = new ZooKeeper(connectString, SESSION_TIMEOUT_MS, e -> {
            if (e.getState() == KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, session, password);
        assertTrue(connected.await(WAIT_MS, TimeUnit.MILLISECONDS), "no clone of session 0x"
                + Long.toHexString(session));
        return clone;
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
