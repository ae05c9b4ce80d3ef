package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Response;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.TopicStreams;
import shepherd.transport.Connection;
import shepherd.zookeeper.ZkPaths;

/**
 * Three real brokers on one real (embedded) ZooKeeper, consumers over real sockets: election, the range
 * assignment, join, failure and topic growth rebalances, and the answers to Register from the wrong broker or too
 * early.
 */
class BrokerEndToEndIT extends ClusterTestSupport {
    private static final String TOPIC = "orders";

    private static List<String> partitions(int onBroker1, int onBroker2) {
        List<String> ids = new ArrayList<>();
        for (int n = 0; n < onBroker1; n++) {
            ids.add("1-" + n);
        }
        for (int n = 0; n < onBroker2; n++) {
            ids.add("2-" + n);
        }
        return ids;
    }

    @Test
    void oneCoordinatorDrivesRangeAssignmentsThroughJoinFailureAndGrowth() throws Exception {
        cluster.setPartitions(TOPIC, 1, 3);
        cluster.setPartitions(TOPIC, 2, 2);
        for (int id = 1; id <= 3; id++) {
            cluster.startBroker(id);
        }
        Broker coordinator = cluster.awaitSingleCoordinator(10_000);
        int epoch = coordinator.status().epoch();
        assertTrue(epoch > 0, "epoch " + epoch);

        TestConsumer c1 = cluster.consumer("g", "c1", TOPIC);
        TestConsumer c2 = cluster.consumer("g", "c2", TOPIC);
        cluster.awaitRangeAssignment(TOPIC, partitions(3, 2), List.of(c1, c2), 10_000);

        TestConsumer c3 = cluster.consumer("g", "c3", TOPIC);
        cluster.awaitRangeAssignment(TOPIC, partitions(3, 2), List.of(c1, c2, c3), 10_000);

        c2.die(); // stops answering pings: declared failed, its partitions move after its lease
        cluster.awaitRangeAssignment(TOPIC, partitions(3, 2), List.of(c1, c3), 10_000);
        Cluster.await(5_000, "c2 removed from the group",
                () -> !coordinator.status().groups().get("g").members().contains("c2"));

        cluster.setPartitions(TOPIC, 2, 4); // two partitions added
        cluster.awaitRangeAssignment(TOPIC, partitions(3, 4), List.of(c1, c3), 10_000);

        // Still exactly one coordinator, same epoch, nobody else claims it.
        assertEquals(1, cluster.live().stream().filter(b -> b.status().coordinating()).count());
        assertEquals(epoch, coordinator.status().epoch());
    }

    @Test
    void aNonCoordinatorAnswersRegisterWithNotCoordinator() throws Exception {
        cluster.setPartitions(TOPIC, 1, 2);
        for (int id = 1; id <= 3; id++) {
            cluster.startBroker(id);
        }
        Broker coordinator = cluster.awaitSingleCoordinator(10_000);
        for (Broker b : cluster.live()) {
            if (b == coordinator) {
                continue;
            }
            Response r = register(b, "g-nc", "x-" + b.brokerId());
            assertEquals(ErrorCode.NOT_COORDINATOR, ((RegisterResponse) r).errorCode(), "broker " + b.brokerId());
        }
    }

    @Test
    void earlyRegistrationsGetNotReadyOrNotCoordinatorOrNoneNeverACrash() throws Exception {
        cluster.setPartitions(TOPIC, 1, 2);
        Broker first = cluster.startBroker(1);
        Set<ErrorCode> seen = EnumSet.noneOf(ErrorCode.class);
        // Register repeatedly from the moment the broker is registered, while it runs for election and loads.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int i = 0;
        while (!seen.contains(ErrorCode.NONE) && System.nanoTime() < deadline) {
            RegisterResponse r = (RegisterResponse) register(first, "g-early", "e" + i++);
            seen.add(r.errorCode());
        }
        System.out.printf("early registrations: %d sent, codes seen %s%n", i, seen);
        assertTrue(seen.contains(ErrorCode.NONE), "codes seen: " + seen);
        assertTrue(EnumSet.of(ErrorCode.NONE, ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_READY)
                .containsAll(seen), "codes seen: " + seen);
        // And the broker still works: a real consumer joins and is started.
        TestConsumer c = cluster.consumer("g-after", "a1", TOPIC);
        cluster.awaitRangeAssignment(TOPIC, partitions(2, 0), List.of(c), 10_000);
    }

    @Test
    void aPlainBrokerShutsDownByDeregisteringWithoutDisturbingTheGroup() throws Exception {
        cluster.setPartitions(TOPIC, 1, 2);
        for (int id = 1; id <= 3; id++) {
            cluster.startBroker(id);
        }
        Broker coordinator = cluster.awaitSingleCoordinator(10_000);
        int epoch = coordinator.status().epoch();
        TestConsumer c = cluster.consumer("g", "c1", TOPIC);
        cluster.awaitRangeAssignment(TOPIC, partitions(2, 0), List.of(c), 10_000);
        int generation = c.generation();
        Broker follower = cluster.live().stream().filter(b -> b != coordinator).findFirst().orElseThrow();
        assertTrue(cluster.exists(ZkPaths.broker(follower.brokerId())));

        assertTrue(follower.shutdown());
        cluster.stopped.add(follower);

        assertFalse(cluster.exists(ZkPaths.broker(follower.brokerId())), "deregistered");
        assertEquals(epoch, coordinator.status().epoch());
        assertTrue(coordinator.status().coordinating());
        Cluster.await(5_000, "the coordinator's Consult no longer lists broker " + follower.brokerId(),
                () -> consultBrokers(coordinator).stream().noneMatch(b -> b.id() == follower.brokerId()));
        assertEquals(generation, c.generation());
        assertNotNull(c.assigned());
    }

    private List<BrokerInfo> consultBrokers(Broker broker) {
        try {
            Connection c = cluster.client.connect("127.0.0.1", broker.port(), (conn, id, req) -> { })
                    .get(5, TimeUnit.SECONDS);
            try {
                return ((ConsultResponse) c.request(new ConsultRequest()).get(5, TimeUnit.SECONDS)).brokers();
            } finally {
                c.close();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** One Register on a fresh connection, its answer; the connection is closed afterwards. */
    private Response register(Broker broker, String group, String consumerId) throws Exception {
        Connection c = cluster.client.connect("127.0.0.1", broker.port(), (conn, id, req) -> { })
                .get(5, TimeUnit.SECONDS);
        try {
            return c.request(new RegisterRequest(group, consumerId,
                    new StaticSubscription(List.of(new TopicStreams(TOPIC, 1))), false, OffsetReset.SMALLEST,
                    Cluster.PING_INTERVAL_MS, (short) Cluster.PING_RETRIES, -1)).get(5, TimeUnit.SECONDS);
        } finally {
            c.close();
        }
    }
}
