package shepherd.coordination.assign;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Generators for the properties. Small id spaces on purpose: consumer ids that contain '-' and digits ("c-1",
 * "c-10", "c-2") and partitions on several brokers with n up to 15 exercise the numeric orderings; topics that
 * exist without subscribers and subscriptions to topics that do not exist exercise the edges.
 */
final class Scenarios {
    static final List<String> TOPICS = List.of("t0", "t1", "t2", "t3");
    static final List<String> CONSUMERS = List.of("a", "b", "c-1", "c-10", "c-2", "consumer", "Z");
    /** Not in {@link #CONSUMERS}: the member that joins. */
    static final String JOINER = "joiner";

    private Scenarios() {}

    static Arbitrary<PartitionId> partitionIds() {
        return Combinators.combine(Arbitraries.integers().between(0, 3), Arbitraries.integers().between(0, 15))
                .as(PartitionId::new);
    }

    static Arbitrary<Map<String, List<PartitionId>>> partitions() {
        Arbitrary<List<PartitionId>> ofTopic = partitionIds().set().ofMaxSize(40).map(ArrayList::new);
        return Arbitraries.maps(Arbitraries.of(TOPICS), ofTopic).ofMinSize(1).ofMaxSize(TOPICS.size());
    }

    /** Topic → stream count for one consumer; may subscribe to nothing, or with 0 streams. */
    static Arbitrary<Map<String, Integer>> subscription() {
        return Arbitraries.maps(Arbitraries.of(TOPICS), Arbitraries.integers().between(0, 4)).ofMaxSize(TOPICS.size());
    }

    static Arbitrary<Scenario> scenarios() {
        Arbitrary<Map<String, Map<String, Integer>>> subscriptions =
                Arbitraries.maps(Arbitraries.of(CONSUMERS), subscription()).ofMaxSize(6);
        return Combinators.combine(partitions(), subscriptions).as(Scenario::new);
    }

    /** Every stream subscribed to the same topics (each consumer has k streams in every one of them). */
    static Arbitrary<Scenario> sameSubscriptions() {
        Arbitrary<Set<String>> topics = Arbitraries.of(TOPICS).set().ofMinSize(1);
        Arbitrary<Map<String, Integer>> streamCounts =
                Arbitraries.maps(Arbitraries.of(CONSUMERS), Arbitraries.integers().between(1, 4)).ofMinSize(1).ofMaxSize(6);
        return Combinators.combine(partitions(), topics, streamCounts).as((partitions, subscribed, counts) -> {
            Map<String, Map<String, Integer>> subscriptions = new TreeMap<>();
            counts.forEach((consumer, k) -> {
                Map<String, Integer> sub = new TreeMap<>();
                subscribed.forEach(topic -> sub.put(topic, k));
                subscriptions.put(consumer, sub);
            });
            return new Scenario(partitions, subscriptions);
        });
    }

    /**
     * Inputs with arbitrary current owners: some partitions unowned, some owned by streams still subscribed, some by
     * streams that left or never subscribed to the topic, and owners of partitions that no longer exist.
     */
    static Arbitrary<AssignmentInput> inputsWithOwners() {
        return scenarios().flatMap(scenario -> {
            AssignmentInput plain = scenario.input();
            List<StreamId> candidates = new ArrayList<>(plain.allStreams());
            candidates.add(new StreamId("gone", 0));
            List<TopicPartition> partitions = new ArrayList<>();
            plain.partitionsByTopic().forEach((topic, ps) -> ps.forEach(p -> partitions.add(new TopicPartition(topic, p))));
            partitions.add(new TopicPartition("t0", new PartitionId(9, 99))); // no longer exists
            return Arbitraries.of(candidates).injectNull(0.3).list().ofSize(partitions.size()).map(owners -> {
                Map<TopicPartition, StreamId> current = new HashMap<>();
                for (int i = 0; i < partitions.size(); i++) {
                    if (owners.get(i) != null) {
                        current.put(partitions.get(i), owners.get(i));
                    }
                }
                return plain.withCurrentOwners(current);
            });
        });
    }
}
