package shepherd.coordination.assign;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Everything an assignor may look at (the seed's rebalance step 2): per topic its partitions and the streams
 * subscribed to it, and the current owners for assignors that care ({@code sticky}).
 *
 * <p>The coordinator resolves static and wildcard subscriptions to topic → streams before it calls an assignor;
 * {@link #fromSubscriptions} does that for consumer → (topic → stream count) maps.
 *
 * <p>The constructor normalises once, so no assignor sorts again: topics iterate in name order, each topic's
 * partitions and streams are sorted ({@link PartitionId} and {@link StreamId} order) and free of duplicates, and
 * every collection is immutable. Two inputs that differ only in the order they were given in are equal.
 * A topic may have streams and no partitions (it does not exist yet) or partitions and no streams (nobody
 * subscribes); neither is an error. Current owners may name partitions or streams that no longer exist: they
 * describe the past, and assignors ignore what no longer applies.
 *
 * @param partitionsByTopic topic → its partitions
 * @param streamsByTopic topic → the streams subscribed to it
 * @param currentOwners partition → the stream that owns it now (may be empty)
 */
public record AssignmentInput(
        Map<String, List<PartitionId>> partitionsByTopic,
        Map<String, List<StreamId>> streamsByTopic,
        Map<TopicPartition, StreamId> currentOwners) {

    public AssignmentInput {
        partitionsByTopic = sortedPerTopic(partitionsByTopic, "partitionsByTopic");
        streamsByTopic = sortedPerTopic(streamsByTopic, "streamsByTopic");
        Objects.requireNonNull(currentOwners, "AssignmentInput.currentOwners must not be null");
        currentOwners = immutableCopy(currentOwners);
    }

    /** An input without current owners. */
    public static AssignmentInput of(
            Map<String, ? extends Collection<PartitionId>> partitionsByTopic,
            Map<String, ? extends Collection<StreamId>> streamsByTopic) {
        return new AssignmentInput(lists(partitionsByTopic), lists(streamsByTopic), Map.of());
    }

    /**
     * Builds the input from each consumer's subscription already resolved to topic → number of streams: a consumer
     * with k streams for a topic contributes streams {@code consumerId-0 … consumerId-(k-1)} to it (k = 0 adds none).
     *
     * @param streamCountsByConsumer consumer id → (topic → stream count ≥ 0)
     */
    public static AssignmentInput fromSubscriptions(
            Map<String, ? extends Collection<PartitionId>> partitionsByTopic,
            Map<String, ? extends Map<String, Integer>> streamCountsByConsumer,
            Map<TopicPartition, StreamId> currentOwners) {
        Objects.requireNonNull(streamCountsByConsumer, "streamCountsByConsumer must not be null");
        Map<String, List<StreamId>> streams = new HashMap<>();
        streamCountsByConsumer.forEach((consumerId, counts) -> {
            Objects.requireNonNull(counts, () -> "stream counts of consumer " + consumerId + " must not be null");
            counts.forEach((topic, count) -> {
                Objects.requireNonNull(topic, () -> "a topic of consumer " + consumerId + " is null");
                if (count == null || count < 0) {
                    throw new IllegalArgumentException(
                            "consumer " + consumerId + " subscribes to " + topic + " with " + count + " streams");
                }
                List<StreamId> ofTopic = streams.computeIfAbsent(topic, t -> new ArrayList<>());
                for (int n = 0; n < count; n++) {
                    ofTopic.add(new StreamId(consumerId, n));
                }
            });
        });
        return new AssignmentInput(lists(partitionsByTopic), streams, currentOwners);
    }

    /** The same topics, partitions and streams with other current owners (e.g. the previous assignment's). */
    public AssignmentInput withCurrentOwners(Map<TopicPartition, StreamId> owners) {
        return new AssignmentInput(partitionsByTopic, streamsByTopic, owners);
    }

    /** The sorted partitions of {@code topic}; empty if it has none. */
    public List<PartitionId> partitions(String topic) {
        return partitionsByTopic.getOrDefault(topic, List.of());
    }

    /** The sorted streams subscribed to {@code topic}; empty if none. */
    public List<StreamId> streams(String topic) {
        return streamsByTopic.getOrDefault(topic, List.of());
    }

    /** Topics with at least one partition and one subscribed stream, in name order: the ones that get assigned. */
    public List<String> assignableTopics() {
        List<String> topics = new ArrayList<>();
        for (Map.Entry<String, List<PartitionId>> e : partitionsByTopic.entrySet()) {
            if (!e.getValue().isEmpty() && !streams(e.getKey()).isEmpty()) {
                topics.add(e.getKey());
            }
        }
        return topics;
    }

    /** Number of partitions over all topics. */
    public int partitionCount() {
        int count = 0;
        for (List<PartitionId> partitions : partitionsByTopic.values()) {
            count += partitions.size();
        }
        return count;
    }

    /** Every stream subscribed to any topic, sorted. */
    public SortedSet<StreamId> allStreams() {
        SortedSet<StreamId> all = new TreeSet<>();
        Set<List<StreamId>> distinct = Collections.newSetFromMap(new IdentityHashMap<>()); // equal lists are shared
        streamsByTopic.values().forEach(streams -> {
            if (distinct.add(streams)) {
                all.addAll(streams);
            }
        });
        return Collections.unmodifiableSortedSet(all);
    }

    /**
     * A HashMap copy rather than {@link Map#copyOf}: the latter probes linearly and suffers badly from clustered
     * hashes, and owner maps hold tens of thousands of entries.
     */
    private static Map<TopicPartition, StreamId> immutableCopy(Map<TopicPartition, StreamId> owners) {
        Map<TopicPartition, StreamId> copy = new HashMap<>(Math.max(16, (int) (owners.size() / 0.75f) + 1));
        owners.forEach((partition, stream) -> copy.put(
                Objects.requireNonNull(partition, "AssignmentInput.currentOwners has a null partition"),
                Objects.requireNonNull(stream, () -> "AssignmentInput.currentOwners[" + partition + "] is null")));
        return Collections.unmodifiableMap(copy);
    }

    private static <T> Map<String, List<T>> lists(Map<String, ? extends Collection<T>> byTopic) {
        Objects.requireNonNull(byTopic, "AssignmentInput: a per-topic map must not be null");
        Map<String, List<T>> lists = new HashMap<>();
        byTopic.forEach((topic, values) -> lists.put(topic, values == null ? null : new ArrayList<>(values)));
        return lists;
    }

    /**
     * Sorts each topic's values once, rejecting nulls and duplicates; the result is immutable and name-ordered.
     * Topics given equal lists share one sorted list instance: groups usually subscribe every stream to every
     * topic, so this sorts once instead of once per topic, and lets assignors cache per-list work by identity.
     */
    private static <T extends Comparable<? super T>> Map<String, List<T>> sortedPerTopic(
            Map<String, List<T>> byTopic, String field) {
        Objects.requireNonNull(byTopic, "AssignmentInput." + field + " must not be null");
        TreeMap<String, List<T>> sorted = new TreeMap<>();
        Map<List<Object>, List<T>> alreadySorted = new HashMap<>();
        byTopic.forEach((topic, values) -> {
            Objects.requireNonNull(topic, () -> "AssignmentInput." + field + " has a null topic");
            Objects.requireNonNull(values, () -> "AssignmentInput." + field + "[" + topic + "] must not be null");
            Object[] given = values.toArray();
            for (Object value : given) {
                Objects.requireNonNull(value, () -> "AssignmentInput." + field + "[" + topic + "] holds a null");
            }
            List<T> list = alreadySorted.get(Arrays.asList(given));
            if (list == null) {
                list = sortedUnique(given.clone(), field, topic);
                alreadySorted.put(Arrays.asList(given), list);
            }
            sorted.put(topic, list);
        });
        return Collections.unmodifiableMap(sorted);
    }

    private static <T> List<T> sortedUnique(Object[] array, String field, String topic) {
        Arrays.sort(array);
        for (int i = 1; i < array.length; i++) {
            if (array[i].equals(array[i - 1])) {
                throw new IllegalArgumentException(
                        "AssignmentInput." + field + "[" + topic + "] lists " + array[i] + " twice");
            }
        }
        @SuppressWarnings("unchecked")
        List<T> list = (List<T>) (List<?>) Collections.unmodifiableList(Arrays.asList(array));
        return list;
    }
}
