package shepherd.coordination;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.TopicPartition;

/**
 * The reference model the stateful tests hold the coordinator to: which consumers are members, what they
 * subscribe to, the topics' partitions and the committed offsets. It knows nothing of runs, barriers or timers;
 * it only says what a cooperative world must look like once it has settled.
 *
 * <p>A consumer that cannot answer (hung) or whose connection closed is <em>doomed</em>: the coordinator must
 * declare it failed, but the model does not predict the instant, only a deadline by which it must have happened
 * (DESIGN §5: {@code max_ping_retries + 1} unanswered pings). Between the two its membership is left open, and the
 * membership check only runs after a settle, which always waits past every deadline.
 */
final class CoordinatorModel {

    /** One member as the model knows it. {@code doomedAtMs} is null while it is expected to stay. */
    static final class Consumer {
        final String id;
        final SortedMap<String, Integer> streamsByTopic;
        final boolean responsive;
        final int pingIntervalMs;
        final short maxPingRetries;
        Long doomedAtMs;

        Consumer(String id, SortedMap<String, Integer> streamsByTopic, boolean responsive, int pingIntervalMs,
                short maxPingRetries) {
            this.id = id;
            this.streamsByTopic = new TreeMap<>(streamsByTopic);
            this.responsive = responsive;
            this.pingIntervalMs = pingIntervalMs;
            this.maxPingRetries = maxPingRetries;
        }

        /** Latest instant by which the coordinator must have failed it, counted from {@code fromMs}. */
        long failureDeadline(long fromMs) {
            return fromMs + (long) (maxPingRetries + 3) * pingIntervalMs;
        }
    }

    private final TreeMap<String, Consumer> consumers = new TreeMap<>();
    private final TreeMap<String, TreeSet<PartitionId>> topics = new TreeMap<>();
    private final TreeMap<TopicPartition, Long> committed = new TreeMap<>();
    private final TreeMap<TopicPartition, TreeSet<Long>> reported = new TreeMap<>();

    CoordinatorModel(Map<String, List<PartitionId>> initialTopics) {
        initialTopics.forEach((t, ps) -> topics.put(t, new TreeSet<>(ps)));
    }

    // ------------------------------------------------------------------ transitions

    /** A (possibly restarted) consumer registered; a hung one is doomed from the start. */
    void registered(String id, SortedMap<String, Integer> streamsByTopic, boolean responsive, int pingIntervalMs,
            short maxPingRetries, long nowMs) {
        Consumer c = new Consumer(id, streamsByTopic, responsive, pingIntervalMs, maxPingRetries);
        if (!responsive) {
            c.doomedAtMs = c.failureDeadline(nowMs);
        }
        consumers.put(id, c);
    }

    void left(String id) {
        consumers.remove(id);
    }

    void connectionClosed(String id, long nowMs) {
        Consumer c = consumers.get(id);
        if (c != null && c.doomedAtMs == null) {
            c.doomedAtMs = c.failureDeadline(nowMs);
        }
    }

    /** Time passed: doomed consumers past their deadline are no longer members. */
    void timePassed(long nowMs) {
        consumers.values().removeIf(c -> c.doomedAtMs != null && c.doomedAtMs <= nowMs);
    }

    void partitionsAdded(String topic, List<PartitionId> added) {
        topics.computeIfAbsent(topic, t -> new TreeSet<>()).addAll(added);
    }

    /**
     * The owner reported an offset (OffsetCommit, or its position on Stop). Whether it was taken is known only
     * from an answer, which a closed connection may lose; so it is a candidate, and a committed offset must be one.
     */
    void offsetReported(TopicPartition tp, long offset) {
        reported.computeIfAbsent(tp, k -> new TreeSet<>()).add(offset);
    }

    /** The coordinator acknowledged an offset (OffsetCommit answered NONE for the partition). */
    void offsetAccepted(TopicPartition tp, long offset) {
        offsetReported(tp, offset);
        committed.merge(tp, offset, Math::max);
    }

    // ------------------------------------------------------------------ queries

    /** Members that may still act: registered, not left, not doomed. */
    SortedSet<String> active() {
        TreeSet<String> out = new TreeSet<>();
        consumers.values().stream().filter(c -> c.doomedAtMs == null).forEach(c -> out.add(c.id));
        return out;
    }

    /** Every member, doomed or not (after {@link #timePassed} past {@link #lastDeadlineMs}, exactly the members). */
    SortedSet<String> members() {
        return new TreeSet<>(consumers.keySet());
    }

    Consumer consumer(String id) {
        return consumers.get(id);
    }

    long lastDeadlineMs() {
        return consumers.values().stream().filter(c -> c.doomedAtMs != null).mapToLong(c -> c.doomedAtMs).max()
                .orElse(Long.MIN_VALUE);
    }

    SortedMap<String, TreeSet<PartitionId>> topics() {
        return topics;
    }

    /** Per partition, the maximum acknowledged offset: a committed offset is at least that. */
    SortedMap<TopicPartition, Long> committed() {
        return committed;
    }

    /** Per partition, every offset its owners reported: a committed offset is one of them. */
    SortedMap<TopicPartition, TreeSet<Long>> reported() {
        return reported;
    }

    /** The members subscribed to {@code topic}, with their stream counts for it. */
    SortedMap<String, Integer> subscribers(String topic) {
        TreeMap<String, Integer> out = new TreeMap<>();
        consumers.values().forEach(c -> {
            Integer streams = c.streamsByTopic.get(topic);
            if (streams != null) {
                out.put(c.id, streams);
            }
        });
        return out;
    }
}
