package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.WildcardKind;
import shepherd.protocol.WildcardSubscription;

/**
 * A wildcard subscription is a promise about topics that do not exist yet: when a matching topic appears in
 * ZooKeeper, the coordinator must rebalance the group so that its partitions are consumed too, while a topic the
 * pattern does not match stays unassigned.
 */
class NewTopicIT extends ClusterTestSupport {

    @Test
    void aNewTopicMatchingAWhitelistIsAssignedAndANonMatchingOneIsNot() throws Exception {
        cluster.setPartitions("orders.eu", 1, 2);
        cluster.setPartitions("payments", 1, 2);
        cluster.startBroker(1);
        cluster.startBroker(2);
        cluster.awaitSingleCoordinator(10_000);

        WildcardSubscription orders = new WildcardSubscription(WildcardKind.WHITELIST, "orders\\..*", 1);
        List<TestConsumer> members = List.of(cluster.consumer("g", "c1", orders), cluster.consumer("g", "c2", orders));
        awaitCoverage(members, Set.of("orders.eu/1-0", "orders.eu/1-1"));
        int before = members.get(0).generation();

        cluster.setPartitions("orders.us", 2, 2);
        awaitCoverage(members, Set.of("orders.eu/1-0", "orders.eu/1-1", "orders.us/2-0", "orders.us/2-1"));
        assertTrue(members.get(0).generation() > before, "a new generation for the new topic");
    }

    /**
     * Waits until every member is started in one generation and the members' assignments together hold exactly
     * {@code expected} ({@code topic/partition}), each partition at one member only.
     */
    private static void awaitCoverage(List<TestConsumer> members, Set<String> expected) {
        Cluster.await(15_000, () -> "each of " + expected + " assigned exactly once; now " + state(members), () -> {
            int generation = members.get(0).generation();
            List<String> all = new ArrayList<>();
            for (TestConsumer c : members) {
                List<PartitionAssignment> a = c.assigned();
                if (a == null || c.generation() != generation) {
                    return false;
                }
                a.forEach(p -> all.add(p.topic() + "/" + p.partition()));
            }
            return all.size() == expected.size() && new TreeSet<>(all).equals(new TreeSet<>(expected));
        });
    }

    private static String state(List<TestConsumer> members) {
        List<String> out = new ArrayList<>();
        for (TestConsumer c : members) {
            List<PartitionAssignment> a = c.assigned();
            out.add(c.id() + "@g" + c.generation() + "="
                    + (a == null ? null : a.stream().map(p -> p.topic() + "/" + p.partition()).toList()));
        }
        return out.toString();
    }
}
