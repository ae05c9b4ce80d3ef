package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import shepherd.coordination.Registration;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.TopicStreams;
import shepherd.protocol.WildcardKind;
import shepherd.protocol.WildcardSubscription;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;

/**
 * What a coordinator finds recorded in ZooKeeper was written by another process, maybe another version: a
 * registration whose regex does not compile, or one that is not JSON at all, must be logged and skipped when the
 * group is loaded, never stop the coordinator from serving the group's valid members.
 */
class RecordedGarbageIT extends ClusterTestSupport {
    private static final String TOPIC = "logs";

    @Test
    void aGroupWithABadRegexAndAGarbageRegistrationLoadsAndServesItsValidMember() throws Exception {
        cluster.setPartitions(TOPIC, 1, 3);
        cluster.put(ZkPaths.group("g"), ZnodeCodec.encodeGroup(new ZnodeCodec.GroupValue(1, "range")));
        cluster.put(ZkPaths.registration("g", "recorded"), ZnodeCodec.encodeRegistration(new Registration(
                new StaticSubscription(List.of(new TopicStreams(TOPIC, 1))), false, OffsetReset.SMALLEST,
                Cluster.PING_INTERVAL_MS, (short) Cluster.PING_RETRIES)));
        cluster.put(ZkPaths.registration("g", "badregex"), ZnodeCodec.encodeRegistration(new Registration(
                new WildcardSubscription(WildcardKind.WHITELIST, "logs([", 1), false, OffsetReset.SMALLEST,
                Cluster.PING_INTERVAL_MS, (short) Cluster.PING_RETRIES)));
        cluster.put(ZkPaths.registration("g", "garbage"), "not json {".getBytes(StandardCharsets.UTF_8));

        cluster.startBroker(1);
        cluster.startBroker(2);
        Broker coordinator = cluster.awaitSingleCoordinator(10_000);
        int epoch = coordinator.status().epoch();

        TestConsumer c = cluster.consumer("g", "c1", TOPIC);
        // The recorded member never reconnects: once it is dropped, c1 alone holds every partition.
        cluster.awaitRangeAssignment(TOPIC, List.of("1-0", "1-1", "1-2"), List.of(c), 15_000);

        assertTrue(coordinator.status().coordinating(), "still the coordinator");
        assertEquals(epoch, coordinator.status().epoch(), "no re-election");
        assertEquals(1, cluster.live().stream().filter(b -> b.status().coordinating()).count());
        List<String> members = List.copyOf(coordinator.status().groups().get("g").members());
        assertTrue(members.contains("c1"), "members " + members);
        assertTrue(!members.contains("badregex") && !members.contains("garbage"), "members " + members);
    }
}
