package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The coordinator goes away twice: once gracefully (handover: the next coordinator skips the lease wait and the
 * consumers are started again quickly), once abruptly (its session closed with no handover: the next coordinator
 * waits out the previous epoch's leases before any Start).
 */
class CoordinatorFailoverIT extends ClusterTestSupport {
    private static final String TOPIC = "events";
    private static final List<String> PARTITIONS = List.of("1-0", "1-1", "1-2", "1-3");

    private boolean allStartedUnder(List<TestConsumer> consumers, int epoch) {
        return consumers.stream().allMatch(c -> c.highestEpoch() == epoch && c.assigned() != null);
    }

    @Test
    void gracefulHandoverThenKillEachElectAHigherEpochAndRestartTheConsumers() throws Exception {
        cluster.setPartitions(TOPIC, 1, 4);
        for (int id = 1; id <= 3; id++) {
            cluster.startBroker(id);
        }
        Broker first = cluster.awaitSingleCoordinator(10_000);
        int epoch1 = first.status().epoch();
        List<TestConsumer> consumers = List.of(cluster.consumer("g", "c1", TOPIC), cluster.consumer("g", "c2", TOPIC));
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, consumers, 10_000);

        // 1. Graceful: handover, then a higher epoch with no lease wait.
        long t0 = System.nanoTime();
        assertTrue(first.shutdown(), "handover completed");
        cluster.stopped.add(first);
        Broker second = cluster.awaitSingleCoordinator(10_000);
        int epoch2 = second.status().epoch();
        assertTrue(epoch2 > epoch1, "epoch " + epoch2 + " after " + epoch1);
        Cluster.await(10_000, "consumers started under epoch " + epoch2, () -> allStartedUnder(consumers, epoch2));
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, consumers, 10_000);
        long gracefulMs = (System.nanoTime() - t0) / 1_000_000;

        // 2. Kill: no handover; the winner waits out the leases of epoch 2 before starting anyone.
        long t1 = System.nanoTime();
        second.halt();
        cluster.stopped.add(second);
        Broker third = cluster.awaitSingleCoordinator(Cluster.SESSION_TIMEOUT_MS + 10_000);
        int epoch3 = third.status().epoch();
        assertTrue(epoch3 > epoch2, "epoch " + epoch3 + " after " + epoch2);
        Cluster.await(15_000, "consumers started under epoch " + epoch3, () -> allStartedUnder(consumers, epoch3));
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, consumers, 10_000);
        long killMs = (System.nanoTime() - t1) / 1_000_000;

        System.out.printf("failover: graceful handover to started %d ms; kill to started %d ms%n", gracefulMs, killMs);
        // A clean handover pays no lease wait, only the grace for members to come back (200 ms here).
        assertTrue(gracefulMs < 1_500, "graceful failover took " + gracefulMs + " ms");
        // After a kill nobody may be started before the previous epoch's leases surely ran out: the winner won
        // after t1 and waits at least D + L (L = ping interval × (retries + 1)) from its win.
        long leaseWaitMinMs = Cluster.MESSAGE_DELAY_MAX_MS + (long) Cluster.PING_INTERVAL_MS * (Cluster.PING_RETRIES + 1);
        assertTrue(killMs >= leaseWaitMinMs, "started after " + killMs + " ms, before the lease wait of "
                + leaseWaitMinMs + " ms");
    }

    @Test
    void aCrashedCoordinatorIsReplacedAfterItsSessionExpiresAndTheLeasesAreWaitedOut() throws Exception {
        cluster.setPartitions(TOPIC, 1, 4);
        Broker crashing = cluster.startBrokerViaProxy(1);
        cluster.awaitSingleCoordinator(10_000); // broker 1 alone: it wins
        cluster.startBroker(2);
        cluster.startBroker(3);
        int epoch1 = crashing.status().epoch();
        List<TestConsumer> consumers = List.of(cluster.consumer("g", "c1", TOPIC), cluster.consumer("g", "c2", TOPIC));
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, consumers, 10_000);

        long t0 = System.nanoTime();
        cluster.crash(crashing);
        Broker next = cluster.awaitSingleCoordinator(Cluster.SESSION_TIMEOUT_MS + 10_000);
        long wonMs = (System.nanoTime() - t0) / 1_000_000;
        int epoch2 = next.status().epoch();
        assertTrue(epoch2 > epoch1, "epoch " + epoch2 + " after " + epoch1);
        Cluster.await(15_000, "consumers started under epoch " + epoch2, () -> allStartedUnder(consumers, epoch2));
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, consumers, 10_000);
        long startedMs = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf("crash: next coordinator won after %d ms, consumers started after %d ms%n", wonMs, startedMs);
        // The election node outlives the crash until ZooKeeper expires the session: no earlier than the timeout
        // after the session's last request, which left at most a keep-alive interval (T/3) before the crash.
        assertTrue(wonMs >= Cluster.SESSION_TIMEOUT_MS * 2 / 3, "won after only " + wonMs + " ms");
        long leaseWaitMinMs = Cluster.MESSAGE_DELAY_MAX_MS + (long) Cluster.PING_INTERVAL_MS * (Cluster.PING_RETRIES + 1);
        assertTrue(startedMs >= wonMs + leaseWaitMinMs, "started " + (startedMs - wonMs) + " ms after the win");
    }
}
