package shepherd.consumer.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionOffset;

/**
 * The offsets the application has taken, per partition of the current generation: the next offset to consume
 * (DESIGN §6: "offsets are those the application has taken"). Written by application threads as they take records
 * (under the owning stream's lock, see {@link StreamQueue}) and by fetchers once they know where a partition with
 * no committed offset starts; read by the network loop for Ping, Stop and Leave. Reset at every Start.
 */
public final class TakenOffsets {
    private record Key(String topic, String partition) {}

    /**
     * Replaced at every Start, not cleared: a {@link ConcurrentHashMap} never shrinks, so a consumer that once held
     * 1,024 partitions would walk a table sized for them in every snapshot of its sixteen (one per Ping and Stop)
     * ever after. Volatile: the network loop replaces it, and the new generation's fetchers and takes begin after.
     */
    private volatile Map<Key, Long> next = new ConcurrentHashMap<>();

    /** A new generation: exactly its partitions, at their committed offsets (−1: unknown until the reset). */
    void reset(List<PartitionAssignment> assigned) {
        Map<Key, Long> fresh = new ConcurrentHashMap<>(assigned.size());
        for (PartitionAssignment a : assigned) {
            if (a.offset() >= 0) {
                fresh.put(new Key(a.topic(), a.partition()), a.offset());
            }
        }
        next = fresh;
    }

    /** A partition without a committed offset now starts at {@code offset} (the reset policy's answer). */
    void initialize(String topic, String partition, long offset) {
        next.putIfAbsent(new Key(topic, partition), offset);
    }

    /** The application took the record before {@code nextOffset}. Offsets only move forward. */
    void advance(String topic, String partition, long nextOffset) {
        next.merge(new Key(topic, partition), nextOffset, Math::max);
    }

    /** The next offset to take in the partition, or −1 if none is known yet: one lookup, no copy. */
    long next(String topic, String partition) {
        return next.getOrDefault(new Key(topic, partition), -1L);
    }

    /** A copy, for a Ping, Stop or Leave response or an OffsetCommit. */
    public List<PartitionOffset> snapshot() {
        Map<Key, Long> next = this.next;
        List<PartitionOffset> out = new ArrayList<>(next.size());
        next.forEach((k, v) -> out.add(new PartitionOffset(k.topic(), k.partition(), v)));
        out.sort((a, b) -> a.topic().equals(b.topic()) ? a.partition().compareTo(b.partition())
                : a.topic().compareTo(b.topic()));
        return out;
    }
}
