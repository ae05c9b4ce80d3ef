package shepherd.coordination.assign;

import java.util.Objects;

/**
 * A partition as the seed names it: the string {@code "<brokerId>-<n>"} (DESIGN §1), held parsed.
 *
 * <p>Ordered numerically by (broker id, n), never as text: {@code "1-9" < "1-10" < "2-0"}. Range's contiguous runs
 * depend on this order (Kafka 0.7 sorted its {@code Partition(brokerId, partId)} the same way).
 */
public record PartitionId(int brokerId, int n) implements Comparable<PartitionId> {
    private static final String FORM = "<brokerId>-<n>, two non-negative decimal ints without sign or leading zeros";

    public PartitionId {
        Ids.requireNonNegative(brokerId, "PartitionId.brokerId");
        Ids.requireNonNegative(n, "PartitionId.n");
    }

    /**
     * Parses {@code "<brokerId>-<n>"}.
     *
     * @throws InvalidIdException naming {@code text} if it is not exactly that form
     */
    public static PartitionId parse(String text) {
        Objects.requireNonNull(text, "partition id must not be null");
        int dash = text.indexOf('-');
        int brokerId = dash < 0 ? -1 : Ids.canonicalNonNegativeInt(text, 0, dash);
        int n = dash < 0 ? -1 : Ids.canonicalNonNegativeInt(text, dash + 1, text.length());
        if (brokerId < 0 || n < 0) {
            throw new InvalidIdException("partition id", text, FORM);
        }
        return new PartitionId(brokerId, n);
    }

    @Override
    public int compareTo(PartitionId other) {
        int byBroker = Integer.compare(brokerId, other.brokerId);
        return byBroker != 0 ? byBroker : Integer.compare(n, other.n);
    }

    /**
     * Mixes both numbers. The record's default, {@code 31 * brokerId + n}, makes "1-31" collide with "2-0": with
     * 10 brokers of 5,000 partitions each, ten ids share every hash and a hash map of owners degrades badly.
     */
    @Override
    public int hashCode() {
        int h = brokerId * 0x9E3779B1 ^ n;
        return h ^ (h >>> 16);
    }

    /** The seed's id string, {@code "<brokerId>-<n>"}; {@link #parse} reads it back. */
    @Override
    public String toString() {
        return brokerId + "-" + n;
    }
}
