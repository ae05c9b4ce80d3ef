package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import shepherd.protocol.DescribeGroupsRequest;
import shepherd.protocol.DescribeGroupsResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.GroupDescription;
import shepherd.protocol.MemberDescription;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionDescription;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.TopicStreams;
import shepherd.transport.Connection;

/**
 * DescribeGroups against real brokers over real sockets: the coordinator describes a group of two live consumers
 * as they are (members with the address they connect from, recent ping answers, generation, owners), every other
 * broker says NOT_COORDINATOR and names the coordinator.
 */
class DescribeGroupsIT extends ClusterTestSupport {
    private static final String TOPIC = "orders";

    @Test
    void theCoordinatorDescribesTwoLiveMembersAndOthersAnswerNotCoordinator() throws Exception {
        cluster.setPartitions(TOPIC, 1, 2);
        cluster.setPartitions(TOPIC, 2, 2);
        for (int id = 1; id <= 3; id++) {
            cluster.startBroker(id);
        }
        Broker coordinator = cluster.awaitSingleCoordinator(10_000);
        TestConsumer c1 = cluster.consumer("g", "c1", TOPIC);
        TestConsumer c2 = cluster.consumer("g", "c2", TOPIC);
        cluster.awaitRangeAssignment(TOPIC, List.of("1-0", "1-1", "2-0", "2-1"), List.of(c1, c2), 10_000);
        // Both have answered a ping since (pings come every PING_INTERVAL_MS).
        Cluster.await(5_000, "both members have answered a ping", () -> describe(coordinator, "g").groups().get(0)
                .members().stream().allMatch(m -> m.lastPingAgeMs() >= 0));

        DescribeGroupsResponse r = describe(coordinator, "g", "nope");
        assertEquals(ErrorCode.NONE, r.errorCode());
        assertEquals(coordinator.brokerId(), r.coordinatorId());
        assertEquals(coordinator.status().epoch(), r.coordinatorEpoch());
        GroupDescription g = r.groups().get(0);
        assertEquals(ErrorCode.NONE, g.errorCode());
        assertEquals(c1.generation(), g.generation());
        assertEquals("IDLE", g.state());
        assertEquals(List.of("c1", "c2"), g.members().stream().map(MemberDescription::consumerId).toList());
        for (MemberDescription m : g.members()) {
            assertEquals("127.0.0.1", m.host(), "the consumers connect over loopback: " + m);
            assertEquals(new StaticSubscription(List.of(new TopicStreams(TOPIC, 1))), m.subscription());
            assertEquals(Cluster.PING_INTERVAL_MS, m.pingIntervalMs());
            // Recent: within a few intervals (the lease is PING_INTERVAL_MS × (PING_RETRIES + 1)).
            assertTrue(m.lastPingAgeMs() >= 0 && m.lastPingAgeMs() < 10L * Cluster.PING_INTERVAL_MS, m.toString());
        }
        Map<String, String> owners = new TreeMap<>();
        for (PartitionDescription p : g.partitions()) {
            assertEquals(TOPIC, p.topic());
            assertEquals(0, p.stream());
            assertEquals(PartitionDescription.OFFSET_NONE, p.committedOffset()); // nobody committed anything
            owners.put(p.partition(), p.owner());
        }
        Map<String, String> started = new TreeMap<>();
        for (TestConsumer c : List.of(c1, c2)) {
            for (PartitionAssignment a : c.assigned()) {
                started.put(a.partition(), c.id());
            }
        }
        assertEquals(started, owners, "the owners described are the partitions each consumer was started with");
        assertEquals(GroupDescription.unknown("nope"), r.groups().get(1));

        DescribeGroupsResponse all = describe(coordinator);
        assertEquals(List.of("g"), all.groups().stream().map(GroupDescription::groupId).toList());

        for (Broker b : cluster.live()) {
            if (b == coordinator) {
                continue;
            }
            DescribeGroupsResponse refused = describe(b, "g");
            assertEquals(ErrorCode.NOT_COORDINATOR, refused.errorCode(), "broker " + b.brokerId());
            assertEquals(coordinator.brokerId(), refused.coordinatorId(), "broker " + b.brokerId());
            assertEquals(List.of(), refused.groups());
        }
    }

    /** One DescribeGroups on a fresh connection; the connection is closed afterwards. */
    private DescribeGroupsResponse describe(Broker broker, String... groups) {
        try {
            Connection c = cluster.client.connect("127.0.0.1", broker.port(), (conn, id, req) -> { })
                    .get(5, TimeUnit.SECONDS);
            try {
                return (DescribeGroupsResponse) c.request(new DescribeGroupsRequest(List.of(groups)))
                        .get(5, TimeUnit.SECONDS);
            } finally {
                c.close();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
