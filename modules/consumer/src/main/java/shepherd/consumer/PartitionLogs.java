package shepherd.consumer;

import java.io.IOException;

/**
 * An opened {@link PartitionSource}: the logs of every partition of every topic, addressed by topic and partition
 * id ({@code "<brokerId>-<n>"}, DESIGN §1). Thread-safe: each fetcher thread opens its own reader, and the ends are
 * asked for from fetcher threads too.
 *
 * <p>Offsets are positions of records in a partition's log, from 0; the "next offset to consume" after record
 * {@code o} is {@code o + 1}. A partition whose log does not exist yet is empty (both ends 0): logs may appear
 * later, as a topic gains partitions before a producer writes to them.
 */
public interface PartitionLogs extends AutoCloseable {

    /** The offset of the first record the log still has (the reset target of {@code smallest}). */
    long earliestOffset(String topic, String partition) throws IOException;

    /** The offset the next appended record will get (the reset target of {@code largest}). */
    long latestOffset(String topic, String partition) throws IOException;

    /**
     * A reader positioned at {@code offset} ({@code 0 ≤ offset}); an offset past the end waits for the log to
     * reach it. Owned by one fetcher thread, which closes it.
     */
    PartitionReader reader(String topic, String partition, long offset) throws IOException;

    /** Releases everything the source holds; readers still open stop working. */
    @Override
    void close() throws IOException;
}
