package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import shepherd.coordination.Coordinator;
import shepherd.zookeeper.ZkPaths;

/**
 * The coordinator's ZooKeeper session is expired by the server while the coordinator is running: its link to
 * ZooKeeper is cut and every reconnect refused until the server has ended the session (its ephemeral broker node is
 * gone or owned by another session), then the link is let back so the broker hears of the expiry. The broker does
 * not expose its session password, and the embedded server does not offer to expire a session, so this is how a real
 * expiry is produced from outside.
 *
 * <p>What must hold: a different broker takes over under a higher epoch; the expired one, once it has reconnected,
 * stops coordinating; every consumer ends up started under the new epoch with the range assignment; and no partition
 * was ever held by two consumers at once, judged from each consumer's own record of when it held what (Start received
 * until Stop received, lease expiry, connection close).
 */
class SessionExpiryIT extends ClusterTestSupport {
    private static final String TOPIC = "events";
    private static final List<String> PARTITIONS = List.of("1-0", "1-1", "1-2", "1-3", "1-4", "1-5");
    /** Bound for the server to expire an unreachable session (timeout plus tick slack) and for the next election. */
    private static final long EXPIRY_BOUND_MS = Cluster.SESSION_TIMEOUT_MS + 7_000;

    /**
     * A third consumer joins; the coordinator sends Stop to the members, and while one of them is still holding back
     * its StopResponse the coordinator loses its session. The next coordinator must finish the job under its own
     * epoch without ever letting two consumers own one partition.
     */
    @Test
    void expiryOfTheCoordinatorWhileARebalanceIsInFlight() throws Exception {
        long t0 = System.nanoTime();
        cluster.setPartitions(TOPIC, 1, PARTITIONS.size());
        for (int id = 1; id <= 3; id++) {
            cluster.startBrokerViaProxy(id);
        }
        Broker old = cluster.awaitSingleCoordinator(10_000);
        TestConsumer c1 = cluster.consumer("g", "c1", TOPIC);
        TestConsumer c2 = cluster.consumer("g", "c2", TOPIC);
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, List.of(c1, c2), 10_000);
        int oldEpoch = old.status().epoch();

        // The join rebalance: c1 acknowledges its Stop late, so the rebalance is in flight when the session goes.
        c1.delayStopResponses(400);
        int stopsBefore = c1.stopsReceived();
        TestConsumer c3 = cluster.consumer("g", "c3", TOPIC);
        Cluster.await(5_000, "c1 received the Stop of the join rebalance", () -> c1.stopsReceived() > stopsBefore);
        long tExpiry = System.nanoTime();
        expire(old);
        c1.delayStopResponses(0);
        assertTrue(c3.ownership().stream().noneMatch(o -> o.epoch == oldEpoch),
                "the join rebalance was still in flight when the link was cut: " + c3.ownership());

        Broker next = awaitCoordinatorAbove(oldEpoch, old);
        int newEpoch = next.status().epoch();
        long wonMs = (System.nanoTime() - tExpiry) / 1_000_000;

        cluster.heal(old);
        Cluster.await(10_000, () -> "broker " + old.brokerId() + " gives up coordinating after its expiry; now "
                + old.status(), () -> old.status().role() == Coordinator.Role.FOLLOWER);

        List<TestConsumer> all = List.of(c1, c2, c3);
        assertEquals(next, cluster.awaitSingleCoordinator(10_000), "the winner still coordinates");
        assertEquals(newEpoch, next.status().epoch(), "no further election");
        awaitStartedUnder(all, newEpoch);
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, all, 10_000);
        assertNoOverlappingOwnership(all, newEpoch);
        System.out.printf("expiry mid-rebalance: epoch %d -> %d, won %d ms after the cut, whole test %d ms%n",
                oldEpoch, newEpoch, wonMs, (System.nanoTime() - t0) / 1_000_000);
    }

    /** The coordinator loses its session, and so does its successor as soon as it has won. */
    @Test
    void backToBackExpiriesOfTheCoordinator() throws Exception {
        long t0 = System.nanoTime();
        cluster.setPartitions(TOPIC, 1, PARTITIONS.size());
        for (int id = 1; id <= 3; id++) {
            cluster.startBrokerViaProxy(id);
        }
        Broker first = cluster.awaitSingleCoordinator(10_000);
        List<TestConsumer> all = List.of(cluster.consumer("g", "c1", TOPIC), cluster.consumer("g", "c2", TOPIC),
                cluster.consumer("g", "c3", TOPIC));
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, all, 10_000);
        int epoch1 = first.status().epoch();

        expire(first);
        Broker second = awaitCoordinatorAbove(epoch1, first);
        int epoch2 = second.status().epoch();
        cluster.heal(first);
        Coordinator.Role secondRole = second.status().role();
        expire(second); // as soon as it is coordinator: most likely still loading or waiting out the leases
        Broker third = awaitCoordinatorAbove(epoch2, second);
        int epoch3 = third.status().epoch();
        cluster.heal(second);

        Broker last = cluster.awaitSingleCoordinator(10_000);
        int lastEpoch = last.status().epoch();
        assertTrue(lastEpoch >= epoch3, "epoch " + lastEpoch + " after " + epoch3);
        for (Broker b : List.of(first, second)) {
            if (b != last) {
                Cluster.await(10_000, () -> "broker " + b.brokerId() + " is a follower; now " + b.status(),
                        () -> b.status().role() == Coordinator.Role.FOLLOWER);
            }
        }
        awaitStartedUnder(all, lastEpoch);
        cluster.awaitRangeAssignment(TOPIC, PARTITIONS, all, 10_000);
        assertEquals(1, cluster.live().stream().filter(b -> b.status().coordinating()).count(), "one coordinator");
        assertNoOverlappingOwnership(all, lastEpoch);
        System.out.printf("back-to-back expiries: epochs %d -> %d (cut while %s) -> %d (final %d on broker %d),"
                + " whole test %d ms%n", epoch1, epoch2, secondRole, epoch3, lastEpoch, last.brokerId(),
                (System.nanoTime() - t0) / 1_000_000);
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Cuts the broker off ZooKeeper and waits until the server has expired its session: its ephemeral broker node is
     * gone (or belongs to a later session). The broker stays cut off; {@link Cluster#heal} lets it reconnect.
     */
    private void expire(Broker b) {
        String node = ZkPaths.broker(b.brokerId());
        long session = cluster.ephemeralOwner(node);
        assertTrue(session != 0, "broker " + b.brokerId() + " is registered");
        cluster.isolate(b);
        Cluster.await(EXPIRY_BOUND_MS, "the server expires session 0x" + Long.toHexString(session) + " of broker "
                + b.brokerId(), () -> cluster.ephemeralOwner(node) != session);
    }

    /** A broker other than {@code loser} that coordinates under an epoch above {@code epoch}. */
    private Broker awaitCoordinatorAbove(int epoch, Broker loser) {
        List<Broker> others = cluster.live().stream().filter(b -> b != loser).toList();
        Cluster.await(EXPIRY_BOUND_MS, () -> "a coordinator above epoch " + epoch + " among brokers "
                + others.stream().map(Broker::brokerId).toList() + "; now "
                + others.stream().map(Broker::status).toList(),
                () -> others.stream().map(Broker::status).anyMatch(s -> s.coordinating() && s.epoch() > epoch));
        return others.stream().filter(b -> {
            BrokerStatus s = b.status();
            return s.coordinating() && s.epoch() > epoch;
        }).findFirst().orElseThrow();
    }

    private static void awaitStartedUnder(List<TestConsumer> consumers, int epoch) {
        Cluster.await(15_000, () -> "consumers started under epoch " + epoch + "; now "
                + consumers.stream().map(c -> c.id() + "@e" + c.highestEpoch() + "=" + Cluster.names(c.assigned()))
                        .toList(),
                () -> consumers.stream().allMatch(c -> c.highestEpoch() == epoch && c.assigned() != null));
    }

    /**
     * No two consumers held one partition at the same instant (touching ends allowed), and what is held now was
     * started under {@code epoch}, each partition by exactly one consumer.
     */
    private static void assertNoOverlappingOwnership(List<TestConsumer> consumers, int epoch) {
        List<TestConsumer.Ownership> intervals = new ArrayList<>();
        consumers.forEach(c -> intervals.addAll(c.ownership()));
        Map<String, List<TestConsumer.Ownership>> byPartition = intervals.stream()
                .collect(Collectors.groupingBy(o -> o.partition));
        for (List<TestConsumer.Ownership> list : byPartition.values()) {
            List<TestConsumer.Ownership> sorted = list.stream()
                    .sorted(Comparator.comparingLong((TestConsumer.Ownership o) -> o.fromNanos)).toList();
            for (int i = 0; i < sorted.size(); i++) {
                for (int j = i + 1; j < sorted.size(); j++) {
                    TestConsumer.Ownership a = sorted.get(i);
                    TestConsumer.Ownership b = sorted.get(j);
                    if (a.toNanos > b.fromNanos && b.toNanos > a.fromNanos) {
                        fail("partition " + a.partition + " held twice at once: " + a + " and " + b
                                + "; its history: " + sorted);
                    }
                }
            }
        }
        List<TestConsumer.Ownership> held = intervals.stream().filter(o -> o.toNanos == Long.MAX_VALUE).toList();
        assertEquals(PARTITIONS.stream().map(p -> TOPIC + "/" + p).sorted().toList(),
                held.stream().map(o -> o.partition).sorted().toList(), "every partition held once now: " + held);
        Optional<TestConsumer.Ownership> stale = held.stream().filter(o -> o.epoch != epoch).findFirst();
        assertTrue(stale.isEmpty(), "held under an old epoch: " + stale);
        assertTrue(intervals.size() > held.size(), "the history shows the rebalances: " + intervals);
    }
}
