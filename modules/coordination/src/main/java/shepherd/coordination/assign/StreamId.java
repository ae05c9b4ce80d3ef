package shepherd.coordination.assign;

import java.util.Objects;

/**
 * A consumer-side stream: {@code "<consumerId>-<n>"}, n from 0 (DESIGN §1). A consumer that subscribes to a topic
 * with k streams contributes {@code consumerId-0 … consumerId-(k-1)} to that topic.
 *
 * <p>Ordered by consumer id as a string ({@link String#compareTo}), then by n as a number: {@code c-2 < c-10 <
 * d-0}. The consumer id may itself contain {@code '-'}; {@link #parse} splits at the last one.
 */
public record StreamId(String consumerId, int n) implements Comparable<StreamId> {
    private static final String FORM = "<consumerId>-<n>, a non-empty consumer id and a non-negative decimal int";

    public StreamId {
        Objects.requireNonNull(consumerId, "StreamId.consumerId must not be null");
        if (consumerId.isEmpty()) {
            throw new IllegalArgumentException("StreamId.consumerId must not be empty");
        }
        Ids.requireNonNegative(n, "StreamId.n");
    }

    /**
     * Parses {@code "<consumerId>-<n>"}, splitting at the last {@code '-'}.
     *
     * @throws InvalidIdException naming {@code text} if it is not that form
     */
    public static StreamId parse(String text) {
        Objects.requireNonNull(text, "stream id must not be null");
        int dash = text.lastIndexOf('-');
        int n = dash <= 0 ? -1 : Ids.canonicalNonNegativeInt(text, dash + 1, text.length());
        if (n < 0) {
            throw new InvalidIdException("stream id", text, FORM);
        }
        return new StreamId(text.substring(0, dash), n);
    }

    @Override
    public int compareTo(StreamId other) {
        int byConsumer = consumerId.compareTo(other.consumerId);
        return byConsumer != 0 ? byConsumer : Integer.compare(n, other.n);
    }

    /** Spreads (consumer, n) better than the record's {@code 31 * h + n}; see {@link PartitionId#hashCode}. */
    @Override
    public int hashCode() {
        int h = consumerId.hashCode() * 0x9E3779B1 + n;
        return h ^ (h >>> 16);
    }

    /** {@code "<consumerId>-<n>"}; {@link #parse} reads it back. */
    @Override
    public String toString() {
        return consumerId + "-" + n;
    }
}
