package shepherd.consumer;

import java.util.Arrays;
import java.util.Objects;

/**
 * One record as a {@link PartitionReader} returns it: its offset in the partition's log and its bytes. The reader
 * hands over the array; nobody changes it afterwards.
 */
public record SourceRecord(long offset, byte[] value) {
    public SourceRecord {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative, got " + offset);
        }
        Objects.requireNonNull(value, "value");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SourceRecord r && r.offset == offset && Arrays.equals(r.value, value);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(offset) * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "SourceRecord[offset=" + offset + ", " + value.length + " bytes]";
    }
}
