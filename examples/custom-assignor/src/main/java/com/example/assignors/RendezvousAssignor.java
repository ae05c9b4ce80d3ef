package com.example.assignors;

import java.nio.charset.StandardCharsets;
import java.util.List;
import shepherd.coordination.assign.Assignment;
import shepherd.coordination.assign.AssignmentInput;
import shepherd.coordination.assign.Assignor;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;

/**
 * {@code rendezvous}: each partition goes to the subscribed stream with the highest weight
 * {@code hash(topic, partition) ⊕ hash(stream)}, mixed (rendezvous, or highest-random-weight, hashing).
 *
 * <p>Why an assignor like this: a partition's owner depends only on the partition and the set of streams, never on
 * the other partitions or on their order. So when a stream joins, the only partitions that move are those the
 * newcomer now wins, and when a stream leaves, only its own partitions move, each to its runner-up; everything else
 * stays where it was, without the coordinator having to remember anything ({@code range} shifts every run behind a
 * newcomer; {@code sticky} gets the same stability by reading the current owners). The price: the balance is
 * statistical, not exact (each of S streams gets about P/S partitions of a topic, the counts varying as a binomial's
 * do), and the cost is one weight per partition and stream, O(P × S) per topic.
 *
 * <p>The contract of {@link Assignor} holds by construction: the weight is a pure function of names (no clock, no
 * randomness, the same in every JVM: it hashes the UTF-8 bytes of the ids, not {@code Object.hashCode}), every
 * partition of a topic with subscribers gets exactly one of them, and the input is normalised, so the order it was
 * given in does not matter. Ties (a 1 in 2⁶⁴ chance) go to the stream that sorts first.
 *
 * <p>The weights are part of the assignor's meaning: changing the hash would move nearly every partition of every
 * group using it at the next rebalance after an upgrade. {@code RendezvousAssignorTest} pins an example.
 */
public final class RendezvousAssignor implements Assignor {
    /** The name a group's broker configuration selects it by ({@code group.assignor.overrides=orders=rendezvous}). */
    public static final String NAME = "rendezvous";

    private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    /** Public and without arguments: {@code ServiceLoader} instantiates it. */
    public RendezvousAssignor() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Assignment assign(AssignmentInput input) {
        Assignment.Builder assignment = Assignment.builder(input.partitionCount());
        for (String topic : input.assignableTopics()) {
            List<StreamId> streams = input.streams(topic);
            long[] streamHashes = new long[streams.size()];
            for (int s = 0; s < streamHashes.length; s++) {
                streamHashes[s] = hash(streams.get(s).toString());
            }
            for (PartitionId partition : input.partitions(topic)) {
                int owner = winner(hash(topic + "/" + partition), streamHashes);
                assignment.assign(new TopicPartition(topic, partition), streams.get(owner));
            }
        }
        return assignment.build();
    }

    /** The index of the stream with the highest weight for this partition; the first of equals (streams are sorted). */
    private static int winner(long partitionHash, long[] streamHashes) {
        int best = 0;
        long bestWeight = weight(partitionHash, streamHashes[0]);
        for (int s = 1; s < streamHashes.length; s++) {
            long w = weight(partitionHash, streamHashes[s]);
            if (Long.compareUnsigned(w, bestWeight) > 0) {
                best = s;
                bestWeight = w;
            }
        }
        return best;
    }

    /** The weight of a (partition, stream) pair: their hashes combined, then mixed so every bit depends on both. */
    static long weight(long partitionHash, long streamHash) {
        return mix(partitionHash ^ mix(streamHash));
    }

    /** 64-bit FNV-1a of the text's UTF-8 bytes: a fixed, well-known function, and 64 bits where hashCode has 32. */
    static long hash(String text) {
        long h = FNV_OFFSET_BASIS;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= FNV_PRIME;
        }
        return h;
    }

    /**
     * SplitMix64's finalizer. FNV-1a mixes poorly (its low bits depend only on the low bits of the bytes), and the
     * XOR of two such hashes would bias which stream wins; after the mix every bit depends on every input bit.
     */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
