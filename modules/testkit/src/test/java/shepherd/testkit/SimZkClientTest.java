package shepherd.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent;
import shepherd.coordination.GroupSnapshot;
import shepherd.coordination.ZkOp;
import shepherd.coordination.ZkRead;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;
import shepherd.zookeeper.ZnodeFormatException;
import shepherd.zookeeper.ZooKeeperAdapter;

/**
 * The real ZooKeeper adapter over {@link SimZkClient} and {@link SimZkLoop}: what the simulation's brokers run. Each
 * test drives the adapter with the core's effects and reads what it reports and what the simulated tree holds, so a
 * translation the adapter relies on (a failed multi's per-op answers, a read-only multi, session events) that the
 * simulated client got wrong shows here rather than as a puzzling seed.
 */
class SimZkClientTest {
    private static final long SESSION_TIMEOUT_MS = 300;
    private static final String GROUP = "g";
    private static final TopicPartition TP = TopicPartition.of("orders", "1-0");

    private final ManualClock clock = new ManualClock(0);
    private final Scheduler scheduler = new Scheduler(clock);
    private final Random random = new Random(7);
    private final SimZooKeeper zk = new SimZooKeeper(scheduler, new Random(random.nextLong()), 1, 3);
    private final SimNetwork network = new SimNetwork(scheduler, new Random(random.nextLong()), 1, 3);

    /** One adapter, the simulated clients it opened, and everything it reported. */
    private final class Broker {
        final SimProcess process;
        final List<SimZooKeeper.Client> clients = new ArrayList<>();
        final List<CoordinatorEvent> events = new ArrayList<>();
        final ZooKeeperAdapter adapter;

        Broker(int id) {
            process = new SimProcess(scheduler, network, "broker-" + id);
            ZooKeeperAdapter.Config config = new ZooKeeperAdapter.Config("sim", (int) SESSION_TIMEOUT_MS, id, 20,
                    900 * 1024, true);
            adapter = ZooKeeperAdapter.open(config,
                    SimZkClient.factory(zk, "broker-" + id, SESSION_TIMEOUT_MS, clients::add),
                    new SimZkLoop(scheduler, process), events::add, process::localNowMs);
        }

        void execute(CoordinatorEffect.ZooKeeper effect) {
            adapter.execute(effect);
            run(100);
        }

        <T extends CoordinatorEvent> List<T> all(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }

        <T extends CoordinatorEvent> T last(Class<T> type) {
            List<T> found = all(type);
            assertTrue(!found.isEmpty(), "no " + type.getSimpleName() + " in " + events);
            return found.get(found.size() - 1);
        }

        int elect() {
            execute(new CoordinatorEffect.RunForElection());
            return last(CoordinatorEvent.ElectionWon.class).epoch();
        }
    }

    private void run(long ms) {
        scheduler.runUntil(scheduler.nowMs() + ms);
    }

    private CoordinatorEffect.Write write(long writeId, int epoch, ZkOp... ops) {
        return new CoordinatorEffect.Write(writeId, epoch, true, List.of(ops));
    }

    private byte[] data(String path) {
        return (byte[]) zk.node(path).orElseThrow().data();
    }

    @Test
    void twoBrokersElectOneCoordinatorAndTheOtherObservesIt() throws ZnodeFormatException {
        Broker b1 = new Broker(1);
        Broker b2 = new Broker(2);
        b1.adapter.execute(new CoordinatorEffect.RunForElection());
        b2.adapter.execute(new CoordinatorEffect.RunForElection());
        run(200);

        List<CoordinatorEvent.ElectionWon> wins = new ArrayList<>(b1.all(CoordinatorEvent.ElectionWon.class));
        wins.addAll(b2.all(CoordinatorEvent.ElectionWon.class));
        assertEquals(1, wins.size(), "exactly one win: " + b1.events + " / " + b2.events);
        assertEquals(1, wins.get(0).epoch(), "the first win bumps the epoch node's version from 0 to 1");
        Broker winner = b1.all(CoordinatorEvent.ElectionWon.class).isEmpty() ? b2 : b1;
        Broker loser = winner == b1 ? b2 : b1;
        int winnerId = winner == b1 ? 1 : 2;
        assertEquals(new CoordinatorEvent.LeaderObserved(winnerId, 1), loser.last(CoordinatorEvent.LeaderObserved.class));
        assertEquals(winner.adapter.sessionId(), zk.node(ZkPaths.COORDINATOR).orElseThrow().stat().ephemeralOwner());
        assertEquals(winnerId, ZnodeCodec.decodeEpoch(ZkPaths.EPOCH, data(ZkPaths.EPOCH)).brokerId());
    }

    @Test
    void aFencedWriteLandsAsTheAdaptersJsonAndABatchedReadGivesItBack() throws ZnodeFormatException {
        Broker b = new Broker(1);
        int epoch = b.elect();
        b.execute(write(1, epoch, new ZkOp.PutGroup(GROUP, 1, "range"),
                new ZkOp.PutOwner(GROUP, TP, new StreamId("c1", 0), 1), new ZkOp.PutOffset(GROUP, TP, 5, "c1")));
        assertEquals(1, b.last(CoordinatorEvent.ZkWriteDone.class).writeId());
        assertEquals(new StreamId("c1", 0),
                ZnodeCodec.decodeOwner(ZkPaths.owner(GROUP, TP), data(ZkPaths.owner(GROUP, TP))).owner());

        b.execute(new CoordinatorEffect.Read(new ZkRead.Group(GROUP)));
        GroupSnapshot read = b.last(CoordinatorEvent.GroupRead.class).snapshot();
        assertEquals(1, read.generation());
        assertEquals(Map.of(TP, new StreamId("c1", 0)), read.owners());
        assertEquals(Map.of(TP, 5L), read.offsets());
        assertEquals(0, b.adapter.garbageCount());
    }

    @Test
    void aWriteUnderAnEarlierEpochIsFencedAtItsCheckAndChangesNothing() {
        Broker b = new Broker(1);
        int epoch = b.elect();
        long before = zk.lastZxid();
        b.execute(write(1, epoch - 1, new ZkOp.PutGroup(GROUP, 1, "range")));
        assertEquals(1, b.last(CoordinatorEvent.ZkWriteFenced.class).writeId());
        assertEquals(before, zk.lastZxid(), "a refused multi commits nothing");
        assertTrue(zk.node(ZkPaths.group(GROUP)).isEmpty());
    }

    @Test
    void aWritePlannedOnAStaleFactFailsWholeAndIsRepairedByProbing() throws ZnodeFormatException {
        Broker b = new Broker(1);
        int epoch = b.elect();
        b.execute(write(1, epoch, new ZkOp.PutOffset(GROUP, TP, 5, "c1")));
        // Behind the coordinator's back (shepherd offsets reset of an empty group): the node it knows is gone.
        zk.admin().delete(ZkPaths.offset(GROUP, TP));

        b.execute(write(2, epoch, new ZkOp.PutOffset(GROUP, TP, 9, "c1")));
        assertEquals(2, b.last(CoordinatorEvent.ZkWriteDone.class).writeId(),
                "the setData planned from knowledge failed at its op (NoNode), the probed re-plan created it");
        assertTrue(b.all(CoordinatorEvent.ZkWriteFailed.class).isEmpty(), b.events.toString());
        assertEquals(9, ZnodeCodec.decodeOffset(ZkPaths.offset(GROUP, TP), data(ZkPaths.offset(GROUP, TP))));
    }

    @Test
    void anExpiredSessionIsReportedThenANewOneRunsForElectionAgain() {
        Broker b = new Broker(1);
        int epoch = b.elect();
        long first = b.adapter.sessionId();
        int before = b.events.size();
        zk.expire(first);
        run(100);
        List<CoordinatorEvent> after = b.events.subList(before, b.events.size());
        assertInstanceOf(CoordinatorEvent.ZkExpired.class, after.get(0),
                "nothing of the new session before the core has heard the old one end: " + after);
        assertInstanceOf(CoordinatorEvent.BrokersChanged.class, after.get(1), "the new session reads the brokers");
        assertEquals(2, b.clients.size());
        assertNotEquals(first, b.adapter.sessionId());
        assertEquals(epoch + 1, b.elect());
    }

    @Test
    void aWriteOfAnEpochWonOnAnEndedSessionIsRefusedRatherThanSentOnTheNextOne() {
        // The core lists a write of its epoch; before the adapter runs it, the session that won the epoch expires.
        // No other broker has won, so ZooKeeper's epoch check would let the write through from the new session.
        Broker b = new Broker(1);
        int epoch = b.elect();
        zk.expire(b.adapter.sessionId());
        while (b.all(CoordinatorEvent.ZkExpired.class).isEmpty()) {
            run(1);
        }
        b.adapter.execute(new CoordinatorEffect.Write(1, epoch, true, List.of(new ZkOp.PutGroup(GROUP, 1, "range"))));
        run(100);
        assertEquals(1, b.last(CoordinatorEvent.ZkWriteFenced.class).writeId());
        assertTrue(b.all(CoordinatorEvent.ZkWriteDone.class).isEmpty(), b.events.toString());
        assertTrue(zk.node(ZkPaths.group(GROUP)).isEmpty(), "nothing of the old epoch lands from the new session");
    }

    @Test
    void aPausedProcessRunsNoneOfTheAdaptersTasksUntilItResumes() {
        Broker b = new Broker(1);
        run(50);
        b.process.pause();
        b.clients.get(0).pause();
        b.adapter.execute(new CoordinatorEffect.RunForElection());
        run(100);
        assertTrue(b.all(CoordinatorEvent.ElectionWon.class).isEmpty());
        assertTrue(zk.node(ZkPaths.COORDINATOR).isEmpty(), "nothing left the paused process");
        b.clients.get(0).resume();
        b.process.resume();
        run(100);
        assertEquals(1, b.last(CoordinatorEvent.ElectionWon.class).epoch());
    }
}
