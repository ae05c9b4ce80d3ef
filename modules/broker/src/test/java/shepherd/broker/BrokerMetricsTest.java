package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import shepherd.coordination.CoordinatorEvent;

class BrokerMetricsTest {

    @Test
    void everyMeterIsInTheScrapeBeforeAnythingHappened() {
        BrokerMetrics m = new BrokerMetrics(4);
        m.bindMalformedFrames(new AtomicLong(), AtomicLong::get);
        String scrape = m.scrape();
        for (String name : List.of("shepherd_rebalances_total", "shepherd_rebalance_duration_seconds_bucket",
                "shepherd_rebalance_duration_seconds_count", "shepherd_groups", "shepherd_members",
                "shepherd_ping_misses_total", "shepherd_consumers_failed_total", "shepherd_coordinator_epoch",
                "shepherd_coordinating", "shepherd_zookeeper_session_events_total",
                "shepherd_zookeeper_op_latency_seconds_bucket", "shepherd_transport_malformed_frames_total")) {
            assertTrue(scrape.contains("\n" + name + "{"), name + " missing from\n" + scrape);
        }
        assertEquals(-1, Scrape.value(scrape, "shepherd_coordinator_epoch", Map.of("broker", "4")));
        assertEquals(0, Scrape.value(scrape, "shepherd_rebalances_total", Map.of("outcome", "stable")));
        assertTrue(scrape.contains("# TYPE shepherd_rebalances_total counter"), scrape);
    }

    @Test
    void aRebalanceIsCountedByOutcomeAndTimedInTheHistogram() {
        BrokerMetrics m = new BrokerMetrics(1);
        m.rebalanceEnded(BrokerMetrics.RebalanceOutcome.STABLE, 120);
        m.rebalanceEnded(BrokerMetrics.RebalanceOutcome.STABLE, 80);
        m.rebalanceEnded(BrokerMetrics.RebalanceOutcome.RETRYING, 5_000);
        String s = m.scrape();
        assertEquals(2, Scrape.value(s, "shepherd_rebalances_total", Map.of("outcome", "stable")));
        assertEquals(1, Scrape.value(s, "shepherd_rebalances_total", Map.of("outcome", "retrying")));
        assertEquals(3, Scrape.value(s, "shepherd_rebalance_duration_seconds_count", Map.of()));
        assertEquals(5.2, Scrape.value(s, "shepherd_rebalance_duration_seconds_sum", Map.of()), 1e-9);
        assertEquals(3, Scrape.value(s, "shepherd_rebalance_duration_seconds_bucket", Map.of("le", "+Inf")));
    }

    @Test
    void gaugesShowTheLastSnapshotAndCountersOnlyGrow() {
        BrokerMetrics m = new BrokerMetrics(1);
        AtomicLong malformed = new AtomicLong();
        m.bindMalformedFrames(malformed, AtomicLong::get);
        m.coordinatorState(7, true, 3, 11);
        m.pingMissed();
        m.pingMissed();
        m.consumerFailed();
        m.sessionEvent(BrokerMetrics.SessionEvent.EXPIRED);
        m.zooKeeperAnswered(BrokerMetrics.ZooKeeperOp.WRITE, 15);
        malformed.set(2);
        String s = m.scrape();
        assertEquals(7, Scrape.value(s, "shepherd_coordinator_epoch", Map.of()));
        assertEquals(1, Scrape.value(s, "shepherd_coordinating", Map.of()));
        assertEquals(3, Scrape.value(s, "shepherd_groups", Map.of()));
        assertEquals(11, Scrape.value(s, "shepherd_members", Map.of()));
        assertEquals(2, Scrape.value(s, "shepherd_ping_misses_total", Map.of()));
        assertEquals(1, Scrape.value(s, "shepherd_consumers_failed_total", Map.of()));
        assertEquals(1, Scrape.value(s, "shepherd_zookeeper_session_events_total", Map.of("event", "expired")));
        assertEquals(0, Scrape.value(s, "shepherd_zookeeper_session_events_total", Map.of("event", "disconnected")));
        assertEquals(1, Scrape.value(s, "shepherd_zookeeper_op_latency_seconds_count", Map.of("op", "write")));
        assertEquals(0.015, Scrape.value(s, "shepherd_zookeeper_op_latency_seconds_sum", Map.of("op", "write")), 1e-9);
        assertEquals(2, Scrape.value(s, "shepherd_transport_malformed_frames_total", Map.of()));
        m.coordinatorState(-1, false, 0, 0); // stood down
        assertEquals(0, Scrape.value(m.scrape(), "shepherd_coordinating", Map.of()));
    }

    @Test
    void theMalformedFrameSourceIsBoundOnce() {
        BrokerMetrics m = new BrokerMetrics(1);
        m.bindMalformedFrames(new AtomicLong(), AtomicLong::get);
        assertThrows(IllegalStateException.class, () -> m.bindMalformedFrames(new AtomicLong(), AtomicLong::get));
    }

    @Test
    void eachZooKeeperAnswerIsTimedUnderItsRequest() {
        assertEquals(Optional.of(BrokerMetrics.ZooKeeperOp.ELECTION),
                BrokerLoop.zooKeeperOp(new CoordinatorEvent.ElectionWon(3, false, 0)));
        assertEquals(Optional.of(BrokerMetrics.ZooKeeperOp.KEEPALIVE),
                BrokerLoop.zooKeeperOp(new CoordinatorEvent.ZkSynced(0)));
        assertEquals(Optional.of(BrokerMetrics.ZooKeeperOp.WRITE),
                BrokerLoop.zooKeeperOp(new CoordinatorEvent.ZkWriteDone(1, 0)));
        assertEquals(Optional.of(BrokerMetrics.ZooKeeperOp.WRITE),
                BrokerLoop.zooKeeperOp(new CoordinatorEvent.ZkWriteFenced(1, 0)));
        assertEquals(Optional.of(BrokerMetrics.ZooKeeperOp.READ),
                BrokerLoop.zooKeeperOp(new CoordinatorEvent.GroupsRead(List.of(), 0)));
        assertEquals(Optional.empty(), BrokerLoop.zooKeeperOp(new CoordinatorEvent.ZkSyncConnected(0)));
    }
}
