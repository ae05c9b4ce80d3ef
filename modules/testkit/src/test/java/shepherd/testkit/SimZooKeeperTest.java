package shepherd.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import shepherd.testkit.SimZooKeeper.Client;

class SimZooKeeperTest {
    private static final long TIMEOUT = 3_000;

    // ------------------------------------------------------------------ tree, versions, multi

    @Test
    void versionsAdvancePerWriteAndAStaleExpectedVersionFailsWithBadVersion() {
        SimZkWorld w = new SimZkWorld(1);
        Client a = w.connected("a", TIMEOUT);
        List<SimZkResult> r = new ArrayList<>();
        a.create("/n", "v0", false, w.cb("a", "create", r));
        a.setData("/n", "v1", 0, w.cb("a", "set0", r));
        a.setData("/n", "v2", 0, w.cb("a", "set0again", r));
        a.setData("/n", "v2", -1, w.cb("a", "setAny", r));
        a.delete("/n", 1, w.cb("a", "delete1", r));
        a.delete("/n", 2, w.cb("a", "delete2", r));
        w.runFor(100);

        assertEquals(List.of(SimZkCode.OK, SimZkCode.OK, SimZkCode.BAD_VERSION, SimZkCode.OK, SimZkCode.BAD_VERSION,
                SimZkCode.OK), r.stream().map(SimZkResult::code).toList());
        SimZkStat created = r.get(0).stat();
        assertEquals(0, created.version());
        assertEquals(created.czxid(), created.mzxid());
        assertEquals(1, r.get(1).stat().version());
        assertEquals(2, r.get(3).stat().version());
        assertTrue(r.get(3).stat().mzxid() > created.mzxid());
        assertEquals(created.czxid(), r.get(3).stat().czxid());
        assertTrue(w.zk.node("/n").isEmpty());
        assertEquals(2, w.zk.node("/").orElseThrow().stat().cversion(), "one create and one delete under the root");
        assertEquals(4, w.zk.lastZxid(), "failed writes take no zxid");
    }

    @Test
    void structuralRulesFailWithNoNodeNotEmptyNodeExistsAndNoChildrenForEphemerals() {
        SimZkWorld w = new SimZkWorld(2);
        Client a = w.connected("a", TIMEOUT);
        w.zk.admin().create("/p/q", "x");
        List<SimZkResult> r = new ArrayList<>();
        a.create("/missing/child", null, false, w.cb("a", "orphan", r));
        a.delete("/p", -1, w.cb("a", "deleteParent", r));
        a.create("/p/q", null, false, w.cb("a", "again", r));
        a.create("/eph", null, true, w.cb("a", "eph", r));
        a.create("/eph/child", null, false, w.cb("a", "underEph", r));
        a.getData("/nothing", false, w.cb("a", "get", r));
        a.setData("/nothing", 1, -1, w.cb("a", "set", r));
        w.runFor(100);

        assertEquals(List.of(SimZkCode.NO_NODE, SimZkCode.NOT_EMPTY, SimZkCode.NODE_EXISTS, SimZkCode.OK,
                SimZkCode.NO_CHILDREN_FOR_EPHEMERALS, SimZkCode.NO_NODE, SimZkCode.NO_NODE),
                r.stream().map(SimZkResult::code).toList());
        assertEquals(List.of("q"), w.zk.children("/p"));
        assertEquals("x", w.zk.node("/p/q").orElseThrow().data());
    }

    @Test
    void multiAppliesAllOrNothingAndNamesTheFirstFailingOp() {
        SimZkWorld w = new SimZkWorld(3);
        Client a = w.connected("a", TIMEOUT);
        w.zk.admin().create("/a", "a0");
        long zxidBefore = w.zk.lastZxid();
        int commitsBefore = w.commits.size();
        List<SimZkResult> r = new ArrayList<>();
        a.multi(List.of(new SimZkOp.Check("/a", 0), new SimZkOp.Create("/b", "b", false),
                new SimZkOp.SetData("/a", "a1", 5), new SimZkOp.Create("/c", "c", false)), w.cb("a", "bad", r));
        w.runFor(50);

        assertEquals(SimZkCode.BAD_VERSION, r.get(0).code());
        assertEquals(2, r.get(0).failedOpIndex());
        assertTrue(w.zk.node("/b").isEmpty(), "the create before the failing op was rolled back");
        assertTrue(w.zk.node("/c").isEmpty());
        assertEquals("a0", w.zk.node("/a").orElseThrow().data());
        assertEquals(zxidBefore, w.zk.lastZxid());
        assertEquals(commitsBefore, w.commits.size());
        assertEquals(1, w.zk.node("/").orElseThrow().stat().cversion(), "the rolled-back create left no trace");

        a.multi(List.of(new SimZkOp.Check("/a", 0), new SimZkOp.Create("/b", "b", false),
                new SimZkOp.Create("/b/c", "c", true), new SimZkOp.SetData("/a", "a1", 0)), w.cb("a", "good", r));
        w.runFor(50);

        assertEquals(SimZkCode.OK, r.get(1).code());
        assertEquals(-1, r.get(1).failedOpIndex());
        SimZkCommit commit = w.commits.get(w.commits.size() - 1);
        assertEquals(zxidBefore + 1, commit.zxid(), "a multi is one zxid");
        assertEquals(a.sessionId(), commit.sessionId());
        assertEquals(List.of("/b", "/b/c", "/a"), commit.changes().stream().map(SimZkApplied::path).toList());
        SimZkStat b = w.zk.node("/b").orElseThrow().stat();
        SimZkStat bc = w.zk.node("/b/c").orElseThrow().stat();
        assertEquals(b.czxid(), bc.czxid());
        assertEquals(commit.zxid(), w.zk.node("/a").orElseThrow().stat().mzxid());
        assertEquals(a.sessionId(), bc.ephemeralOwner());
        assertEquals(new SimZkApplied("/a", SimZkApplied.Kind.DATA_SET, "a0", "a1", 1), commit.changes().get(2));

        a.multi(List.of(new SimZkOp.Delete("/b", -1)), w.cb("a", "notEmpty", r));
        a.multi(List.of(new SimZkOp.Check("/nope", -1)), w.cb("a", "checkMissing", r));
        w.runFor(50);
        assertEquals(SimZkCode.NOT_EMPTY, r.get(2).code());
        assertEquals(0, r.get(2).failedOpIndex());
        assertEquals(SimZkCode.NO_NODE, r.get(3).code());
    }

    // ------------------------------------------------------------------ watches

    @Test
    void aWatchFiresOnceAndOnlyForTheSessionThatSetIt() {
        SimZkWorld w = new SimZkWorld(4);
        w.zk.admin().create("/w", 0);
        Client a = w.connected("a", TIMEOUT);
        Client b = w.connected("b", TIMEOUT);
        a.getData("/w", true, w.cb("a", "get"));
        a.getData("/w", true, w.cb("a", "getAgain"));
        b.getData("/w", false, w.cb("b", "get"));
        w.runFor(50);
        w.takeLog();

        w.zk.admin().setData("/w", 1);
        w.zk.admin().setData("/w", 2);
        w.runFor(50);

        assertEquals(List.of("a watch NODE_DATA_CHANGED /w"), w.takeLog(),
                "one event for two registrations, none for b, none for the second write");
    }

    @Test
    void childWatchesAndDataWatchesFireOnTheirOwnKindOfChange() {
        SimZkWorld w = new SimZkWorld(5);
        w.zk.admin().create("/p", "p");
        Client a = w.connected("a", TIMEOUT);
        a.getChildren("/p", true, w.cb("a", "children"));
        w.runFor(50);
        w.zk.admin().setData("/p", "p1");
        w.runFor(50);
        assertEquals(List.of("a children OK"), w.takeLog(), "a child watch ignores data changes");

        w.zk.admin().create("/p/c", null);
        w.runFor(50);
        assertEquals(List.of("a watch NODE_CHILDREN_CHANGED /p"), w.takeLog());

        a.getData("/p", true, w.cb("a", "data"));
        w.runFor(50);
        w.zk.admin().create("/p/d", null);
        w.runFor(50);
        assertEquals(List.of("a data OK"), w.takeLog(), "a data watch ignores child changes");

        a.getChildren("/p", true, w.cb("a", "children", null));
        w.runFor(50);
        w.zk.admin().delete("/p/c");
        w.zk.admin().delete("/p/d");
        w.zk.admin().delete("/p");
        w.runFor(50);
        assertEquals(List.of("a children OK", "a watch NODE_CHILDREN_CHANGED /p", "a watch NODE_DELETED /p"),
                w.takeLog(), "the data watch set earlier fires on deletion; one event per session");
    }

    @Test
    void anExistsWatchOnAMissingNodeFiresOnCreationWhileGetDataOnAMissingNodeSetsNone() {
        SimZkWorld w = new SimZkWorld(6);
        Client a = w.connected("a", TIMEOUT);
        Client b = w.connected("b", TIMEOUT);
        List<SimZkResult> r = new ArrayList<>();
        a.exists("/leader", true, w.cb("a", "exists", r));
        b.getData("/leader", true, w.cb("b", "get", r));
        w.runFor(50);
        assertEquals(SimZkCode.NO_NODE, r.get(0).code());
        assertNull(r.get(0).stat());

        w.zk.admin().create("/leader", "x");
        w.runFor(50);
        w.zk.admin().delete("/leader");
        w.runFor(50);
        assertEquals(List.of("a watch NODE_CREATED /leader"),
                w.log.stream().filter(line -> line.contains("watch")).toList());
    }

    @Test
    void aWatchEventTriggeredByAWriteArrivesBeforeTheReplyOfALaterRead() {
        for (long seed = 0; seed < 50; seed++) {
            SimZkWorld w = new SimZkWorld(seed, 1, 40);
            w.zk.admin().create("/x", 0);
            Client a = w.connected("a", TIMEOUT);
            Client b = w.connected("b", TIMEOUT);
            a.getData("/x", true, w.cb("a", "first"));
            w.runFor(200);
            b.setData("/x", 1, -1, result -> {
                w.log.add("b set " + result.code());
                // b's write is applied: anything a reads from now on must come after the event.
                a.getData("/x", false, w.cb("a", "second"));
            });
            w.runFor(200);
            assertEquals(List.of("a first OK", "a watch NODE_DATA_CHANGED /x", "a second OK"), w.logOf("a"),
                    "seed " + seed);
        }
    }

    @Test
    void watchEventsFiredWhileDisconnectedArriveAfterReconnecting() {
        SimZkWorld w = new SimZkWorld(7);
        w.zk.admin().create("/x", 0);
        Client a = w.connected("a", TIMEOUT);
        a.getData("/x", true, w.cb("a", "get"));
        w.runFor(50);
        a.disconnect();
        w.runFor(50);
        w.zk.admin().setData("/x", 1);
        w.runFor(500);
        a.reconnect();
        w.runFor(50);
        assertEquals(List.of("a get OK", "a session DISCONNECTED", "a session SYNC_CONNECTED",
                "a watch NODE_DATA_CHANGED /x"), w.log);
    }

    // ------------------------------------------------------------------ sessions and ephemerals

    @Test
    void electionStyleCreateLosesWithNodeExistsAndTheEphemeralOwnerIsTheWinner() {
        SimZkWorld w = new SimZkWorld(8);
        Client a = w.connected("a", TIMEOUT);
        Client b = w.connected("b", TIMEOUT);
        List<SimZkResult> ra = new ArrayList<>();
        List<SimZkResult> rb = new ArrayList<>();
        a.create("/leader", "a", true, w.cb("a", "elect", ra));
        b.create("/leader", "b", true, w.cb("b", "elect", rb));
        w.runFor(50);

        assertNotEquals(ra.get(0).code(), rb.get(0).code());
        Client winner = ra.get(0).ok() ? a : b;
        SimZkResult lost = ra.get(0).ok() ? rb.get(0) : ra.get(0);
        assertEquals(SimZkCode.NODE_EXISTS, lost.code());
        SimZkNode leader = w.zk.node("/leader").orElseThrow();
        assertEquals(winner.sessionId(), leader.stat().ephemeralOwner());
        assertEquals(winner.name(), leader.data());
        assertTrue(a.sessionId() > 0 && b.sessionId() > 0 && a.sessionId() != b.sessionId());
    }

    @Test
    void expiryDeletesTheSessionsEphemeralsInOneCommitAndTellsOtherWatchers() {
        SimZkWorld w = new SimZkWorld(9);
        w.zk.admin().create("/members", null);
        Client a = w.connected("a", TIMEOUT);
        Client b = w.connected("b", TIMEOUT);
        a.create("/members/a", "a", true, w.cb("a", "join"));
        a.create("/leader", "a", true, w.cb("a", "elect"));
        a.create("/durable", "a", false, w.cb("a", "durable"));
        w.runFor(50);
        b.exists("/leader", true, w.cb("b", "exists"));
        b.getChildren("/members", true, w.cb("b", "members"));
        a.getData("/durable", true, w.cb("a", "watchOwn"));
        w.runFor(50);
        w.takeLog();
        long zxid = w.zk.lastZxid();

        assertTrue(w.zk.expire(a.sessionId()));
        assertFalse(w.zk.sessionAlive(a.sessionId()));
        SimZkCommit commit = w.commits.get(w.commits.size() - 1);
        assertEquals(zxid + 1, commit.zxid());
        assertEquals(a.sessionId(), commit.sessionId());
        assertEquals(List.of("/leader", "/members/a"), commit.changes().stream().map(SimZkApplied::path).toList());
        assertTrue(commit.changes().stream().allMatch(c -> c.kind() == SimZkApplied.Kind.DELETED));
        assertTrue(w.zk.node("/durable").isPresent());

        w.runFor(50);
        a.sync(w.cb("a", "afterExpiry"));
        w.runFor(50);
        assertEquals(List.of("b watch NODE_DELETED /leader", "b watch NODE_CHILDREN_CHANGED /members"),
                w.logOf("b"));
        assertEquals(List.of("a session EXPIRED", "a afterExpiry SESSION_EXPIRED"), w.logOf("a"),
                "a live client learns a forced expiry directly; its own watches are gone");
        assertEquals(Client.State.EXPIRED, a.state());
    }

    @Test
    void closeEndsTheSessionAtOnceAndDeletesItsEphemerals() {
        SimZkWorld w = new SimZkWorld(10);
        Client a = w.connected("a", TIMEOUT);
        a.create("/e", null, true, w.cb("a", "create"));
        w.runFor(50);
        a.close();
        assertFalse(w.zk.sessionAlive(a.sessionId()));
        assertTrue(w.zk.node("/e").isEmpty());
        assertEquals(a.sessionId(), w.commits.get(w.commits.size() - 1).sessionId());
        a.sync(w.cb("a", "afterClose"));
        w.runFor(50);
        assertEquals(List.of("a create OK", "a afterClose SESSION_EXPIRED"), w.logOf("a"));
    }

    // ------------------------------------------------------------------ faults

    @Test
    void disconnectFailsInFlightRequestsWithConnectionLossWhetherOrNotTheyWereApplied() {
        int applied = 0;
        int notApplied = 0;
        for (long seed = 0; seed < 60; seed++) {
            SimZkWorld w = new SimZkWorld(seed);
            Client a = w.connected("a", TIMEOUT);
            a.create("/k", seed, false, w.cb("a", "create"));
            a.disconnect();
            w.runFor(20);
            assertEquals(List.of("a create CONNECTION_LOSS", "a session DISCONNECTED"), w.takeLog(), "seed " + seed);
            if (w.zk.node("/k").isPresent()) {
                applied++;
            } else {
                notApplied++;
            }
            a.sync(w.cb("a", "whileDisconnected"));
            long issuedAt = w.scheduler.nowMs();
            w.scheduler.runUntil(issuedAt);
            assertEquals(List.of("a whileDisconnected CONNECTION_LOSS"), w.takeLog(), "fails promptly");
        }
        assertTrue(applied > 5 && notApplied > 5, "applied " + applied + ", not applied " + notApplied);
    }

    @Test
    void aReplyOnTheWireAtDisconnectIsLostAlthoughItsWriteWasApplied() {
        SimZkWorld w = new SimZkWorld(11, 10, 10);
        Client a = w.connected("a", TIMEOUT);
        a.create("/k", 1, false, w.cb("a", "create"));
        w.runFor(15); // applied at the server at +10, the reply lands at +20
        assertTrue(w.zk.node("/k").isPresent());
        a.disconnect();
        w.runFor(50);
        assertEquals(List.of("a create CONNECTION_LOSS", "a session DISCONNECTED"), w.logOf("a"));
    }

    @Test
    void theServerExpiresADisconnectedSessionAfterItsTimeoutAndTheClientLearnsAtReconnect() {
        SimZkWorld w = new SimZkWorld(12);
        Client a = w.connected("a", 1_000);
        a.create("/e", null, true, w.cb("a", "create"));
        w.runFor(50);
        long cutAt = w.scheduler.nowMs();
        a.disconnect();
        w.scheduler.runUntil(cutAt + 999);
        assertTrue(w.zk.sessionAlive(a.sessionId()));
        w.scheduler.runUntil(cutAt + 1_000);
        assertFalse(w.zk.sessionAlive(a.sessionId()));
        assertTrue(w.zk.node("/e").isEmpty());
        assertEquals(cutAt + 1_000, w.commits.get(w.commits.size() - 1).atMs());
        assertEquals(Client.State.DISCONNECTED, a.state(), "the client does not know yet");

        w.scheduler.runUntil(cutAt + 1_200);
        a.reconnect();
        w.runFor(50);
        a.sync(w.cb("a", "after"));
        w.runFor(50);
        assertEquals(List.of("a create OK", "a session DISCONNECTED", "a session EXPIRED", "a after SESSION_EXPIRED"),
                w.logOf("a"));
        a.reconnect();
        assertEquals(Client.State.EXPIRED, a.state());
    }

    @Test
    void reconnectingWithinTheTimeoutKeepsTheSessionAndItsEphemerals() {
        SimZkWorld w = new SimZkWorld(13);
        Client a = w.connected("a", 1_000);
        a.create("/e", null, true, w.cb("a", "create"));
        w.runFor(50);
        a.disconnect();
        w.runFor(900);
        a.reconnect();
        w.runFor(5_000);
        a.sync(w.cb("a", "after"));
        w.runFor(50);
        assertTrue(w.zk.sessionAlive(a.sessionId()));
        assertTrue(w.zk.node("/e").isPresent());
        assertEquals(List.of("a create OK", "a session DISCONNECTED", "a session SYNC_CONNECTED", "a after OK"),
                w.logOf("a"));
    }

    @Test
    void aClientDisconnectedForMoreThanFourThirdsOfItsTimeoutDeclaresItselfExpired() {
        SimZkWorld w = new SimZkWorld(14);
        Client a = w.connected("a", TIMEOUT);
        long cutAt = w.scheduler.nowMs();
        a.disconnect();
        w.scheduler.runUntil(cutAt + TIMEOUT * 4 / 3);
        assertEquals(List.of("a session DISCONNECTED"), w.logOf("a"));
        assertEquals(Client.State.DISCONNECTED, a.state());
        w.scheduler.runUntil(cutAt + TIMEOUT * 4 / 3 + 1);
        assertEquals(List.of("a session DISCONNECTED", "a session EXPIRED"), w.logOf("a"));
        assertEquals(Client.State.EXPIRED, a.state());
        a.reconnect();
        w.runFor(50);
        assertEquals(2, w.logOf("a").size(), "an expired client stays dead");
    }

    @Test
    void aPausePastTheTimeoutDeliversQueuedRepliesInOrderThenDisconnectedThenExpiredLater() {
        SimZkWorld w = new SimZkWorld(15);
        Client a = w.connected("a", 1_000);
        Client b = w.connected("b", 1_000);
        a.create("/lock", "a", true, w.cb("a", "lock"));
        w.runFor(50);
        b.getChildren("/", true, w.cb("b", "children"));
        a.getData("/lock", false, w.cb("a", "get"));
        a.setData("/lock", "a2", 0, w.cb("a", "set"));
        a.sync(w.cb("a", "sync"));
        a.pause();
        w.runFor(3_000);
        assertFalse(w.zk.sessionAlive(a.sessionId()));
        assertTrue(w.zk.node("/lock").isEmpty());
        assertEquals(List.of("a lock OK"), w.logOf("a"), "a frozen process hears nothing");
        assertEquals(List.of("b children OK", "b watch NODE_CHILDREN_CHANGED /"), w.logOf("b"));

        long resumedAt = w.scheduler.nowMs();
        a.resume();
        assertEquals(List.of("a lock OK", "a get OK", "a set OK", "a sync OK", "a session DISCONNECTED"), w.logOf("a"),
                "what queued up is delivered in order at resume, then the client notices the closed connection");
        w.runFor(50);
        assertEquals("a session EXPIRED", w.logOf("a").get(5));
        assertTrue(w.scheduler.nowMs() > resumedAt);
    }

    @Test
    void aShortPauseLosesNothing() {
        SimZkWorld w = new SimZkWorld(16);
        Client a = w.connected("a", 1_000);
        a.sync(w.cb("a", "one"));
        a.sync(w.cb("a", "two"));
        a.pause();
        w.runFor(900);
        assertTrue(w.logOf("a").isEmpty());
        a.resume();
        w.runFor(2_000);
        assertTrue(w.zk.sessionAlive(a.sessionId()));
        assertEquals(List.of("a one OK", "a two OK"), w.logOf("a"));
        assertThrows(IllegalStateException.class, () -> {
            a.pause();
            a.sync(r -> { });
        });
    }

    // ------------------------------------------------------------------ determinism

    @Test
    void theSameSeedGivesTheSameCommitsAndDeliveries() {
        List<String> first = SimZkChaos.run(42, 20_000).trace();
        List<String> second = SimZkChaos.run(42, 20_000).trace();
        List<String> other = SimZkChaos.run(43, 20_000).trace();
        assertTrue(first.size() > 200, "the workload did something: " + first.size());
        assertEquals(first, second);
        assertNotEquals(first, other);
    }

    @Test
    void sessionIdsAreUniqueAndPositiveAndTheRootExists() {
        SimZooKeeper zk = new SimZooKeeper(new Scheduler(new ManualClock(0)), new Random(0));
        long one = zk.connect("one", 1000, null).sessionId();
        long two = zk.connect("two", 1000, null).sessionId();
        assertTrue(one > 0 && two > 0 && one != two);
        assertTrue(zk.node("/").isPresent());
        assertThrows(IllegalArgumentException.class, () -> zk.node("no-slash"));
        assertThrows(IllegalArgumentException.class, () -> zk.node("/trailing/"));
    }
}
