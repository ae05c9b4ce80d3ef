package shepherd.consumer;

import java.io.IOException;
import java.util.List;

/** Reads one partition's log forward from a position, for one fetcher thread (not thread-safe). */
public interface PartitionReader extends AutoCloseable {

    /**
     * The next records, in offset order, at most {@code maxRecords} (≥ 1); waits up to {@code waitMs} for the first
     * one to be appended, then returns what there is (an empty list when nothing came). Records are consecutive:
     * each call continues where the previous one ended.
     *
     * @throws InterruptedException the fetcher is being closed
     * @throws IOException          the log could not be read; the fetcher logs it and retries with a new reader
     */
    List<SourceRecord> read(int maxRecords, long waitMs) throws IOException, InterruptedException;

    @Override
    void close() throws IOException;
}
