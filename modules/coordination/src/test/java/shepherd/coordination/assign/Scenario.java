package shepherd.coordination.assign;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A group as the coordinator sees it before resolving streams: topics' partitions and consumers' stream counts. */
record Scenario(Map<String, List<PartitionId>> partitions, Map<String, Map<String, Integer>> subscriptions) {

    AssignmentInput input() {
        return input(Map.of());
    }

    AssignmentInput input(Map<TopicPartition, StreamId> currentOwners) {
        return AssignmentInput.fromSubscriptions(partitions, subscriptions, currentOwners);
    }

    Scenario with(String consumerId, Map<String, Integer> subscription) {
        Map<String, Map<String, Integer>> more = new TreeMap<>(subscriptions);
        more.put(consumerId, subscription);
        return new Scenario(partitions, more);
    }

    Scenario without(String consumerId) {
        Map<String, Map<String, Integer>> fewer = new TreeMap<>(subscriptions);
        fewer.remove(consumerId);
        return new Scenario(partitions, fewer);
    }

    List<String> consumers() {
        return new ArrayList<>(new TreeMap<>(subscriptions).keySet());
    }
}
