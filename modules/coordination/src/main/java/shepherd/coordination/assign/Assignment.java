package shepherd.coordination.assign;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The result of an assignor: each assigned partition → the one stream that owns it. A partition maps to one stream
 * by construction ({@link Builder#assign} refuses a second owner), so "at most one owner" needs no checking; "at
 * least one" and "only subscribed streams" are {@link AssignmentInvariants}' job.
 *
 * <p>Immutable. {@link #owners()} iterates in {@link TopicPartition} order, so everything derived from an
 * assignment (Start requests, the owners written to ZooKeeper) comes out in the same order every time.
 */
public final class Assignment {
    private static final Assignment EMPTY = new Assignment(Map.of());

    private final Map<TopicPartition, StreamId> owners;

    private Assignment(Map<TopicPartition, StreamId> owners) {
        this.owners = owners;
    }

    public static Assignment empty() {
        return EMPTY;
    }

    /** An assignment holding a copy of {@code owners}. */
    public static Assignment of(Map<TopicPartition, StreamId> owners) {
        Objects.requireNonNull(owners, "Assignment.owners must not be null");
        Builder builder = builder(owners.size());
        new TreeMap<>(owners).forEach(builder::assign);
        return builder.build();
    }

    /** A builder for about {@code expectedPartitions} partitions; cheapest when fed in {@link TopicPartition} order. */
    public static Builder builder(int expectedPartitions) {
        return new Builder(expectedPartitions);
    }

    /** Partition → owning stream, in {@link TopicPartition} order. */
    public Map<TopicPartition, StreamId> owners() {
        return owners;
    }

    public Optional<StreamId> ownerOf(TopicPartition partition) {
        return Optional.ofNullable(owners.get(partition));
    }

    /** Number of assigned partitions. */
    public int size() {
        return owners.size();
    }

    /** Stream → its partitions (sorted); streams that own nothing are absent. */
    public SortedMap<StreamId, List<TopicPartition>> byStream() {
        SortedMap<StreamId, List<TopicPartition>> byStream = new TreeMap<>();
        owners.forEach((partition, stream) -> byStream.computeIfAbsent(stream, s -> new ArrayList<>()).add(partition));
        byStream.replaceAll((stream, partitions) -> Collections.unmodifiableList(partitions));
        return Collections.unmodifiableSortedMap(byStream);
    }

    /** The partitions {@code stream} owns, sorted; empty if none. */
    public List<TopicPartition> partitionsOf(StreamId stream) {
        List<TopicPartition> partitions = new ArrayList<>();
        owners.forEach((partition, owner) -> {
            if (owner.equals(stream)) {
                partitions.add(partition);
            }
        });
        return Collections.unmodifiableList(partitions);
    }

    /**
     * Consumer id → (partition → the consumer's stream that owns it): what each consumer's Start carries. Consumers
     * that own nothing are absent.
     */
    public SortedMap<String, SortedMap<TopicPartition, StreamId>> byConsumer() {
        SortedMap<String, SortedMap<TopicPartition, StreamId>> byConsumer = new TreeMap<>();
        owners.forEach((partition, stream) ->
                byConsumer.computeIfAbsent(stream.consumerId(), c -> new TreeMap<>()).put(partition, stream));
        byConsumer.replaceAll((consumer, owned) -> Collections.unmodifiableSortedMap(owned));
        return Collections.unmodifiableSortedMap(byConsumer);
    }

    /** The partitions of {@code consumerId}'s streams → the stream owning each; empty if none. */
    public SortedMap<TopicPartition, StreamId> ofConsumer(String consumerId) {
        SortedMap<TopicPartition, StreamId> owned = new TreeMap<>();
        owners.forEach((partition, stream) -> {
            if (stream.consumerId().equals(consumerId)) {
                owned.put(partition, stream);
            }
        });
        return Collections.unmodifiableSortedMap(owned);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Assignment other && owners.equals(other.owners);
    }

    @Override
    public int hashCode() {
        return owners.hashCode();
    }

    /** Stream by stream: {@code Assignment{c-0=[t/0-0, t/0-1], c-1=[t/0-2]}}. */
    @Override
    public String toString() {
        return "Assignment" + byStream();
    }

    /** Collects partition → stream decisions; one use only. */
    public static final class Builder {
        private LinkedHashMap<TopicPartition, StreamId> owners;
        private TopicPartition last;
        private boolean inOrder = true;

        private Builder(int expectedPartitions) {
            owners = new LinkedHashMap<>(Math.max(16, (int) (expectedPartitions / 0.75f) + 1));
        }

        /**
         * Gives {@code partition} to {@code stream}.
         *
         * @throws IllegalStateException if the partition already has an owner: an assignor that double-assigns is
         *     broken, and the assignment must never reach ZooKeeper
         */
        public Builder assign(TopicPartition partition, StreamId stream) {
            Objects.requireNonNull(partition, "partition must not be null");
            Objects.requireNonNull(stream, "stream must not be null");
            if (owners == null) {
                throw new IllegalStateException("Assignment.Builder used after build()");
            }
            StreamId previous = owners.putIfAbsent(partition, stream);
            if (previous != null) {
                throw new IllegalStateException(
                        "partition " + partition + " assigned twice: to " + previous + " and to " + stream);
            }
            if (last != null && last.compareTo(partition) > 0) {
                inOrder = false;
            }
            last = partition;
            return this;
        }

        public Assignment build() {
            if (owners == null) {
                throw new IllegalStateException("Assignment.Builder used after build()");
            }
            Map<TopicPartition, StreamId> built = owners;
            owners = null;
            if (!inOrder) {
                built = new LinkedHashMap<>(new TreeMap<>(built));
            }
            return built.isEmpty() ? EMPTY : new Assignment(Collections.unmodifiableMap(built));
        }
    }
}
