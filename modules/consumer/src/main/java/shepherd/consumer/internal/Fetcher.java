package shepherd.consumer.internal;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.consumer.ConsumerRecord;
import shepherd.consumer.PartitionLogs;
import shepherd.consumer.PartitionReader;
import shepherd.consumer.SourceRecord;
import shepherd.protocol.OffsetReset;

/**
 * One partition of one generation: a task, on a thread of its consumer's fetcher pool, that reads the partition's
 * log from the Start offset into the queue of the stream that owns it (seed Start handler 4.1). It never runs on the
 * network loop, and the source's code never runs there either. Closed by the loop on Stop; it then adds nothing more
 * ({@link StreamQueue#offer}), whenever its thread notices: its thread is interrupted only when it is handed the
 * next generation's fetcher or released ({@link FetcherThreads}). The pool's threads outlive generations: creating
 * and ending one thread per partition and consumer in a rebalance that moves every partition would be most of the
 * consumers' CPU in it.
 *
 * <p>A read error is logged once per failure streak with the partition and offset, then the fetcher waits and
 * opens a new reader at the next offset: a log that is briefly unreadable delays this partition only.
 */
final class Fetcher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Fetcher.class);
    private static final long RETRY_MS_MIN = 100;
    private static final long RETRY_MS_MAX = 5_000;

    private final String consumerId;
    private final String topic;
    private final String partition;
    private final int generation;
    private final long startOffset;
    private final OffsetReset reset;
    private final PartitionLogs logs;
    private final StreamQueue queue;
    private final int batchRecordsMax;
    private final long waitMs;
    /** The thread this fetcher's run began on; null until it begins. */
    volatile FetcherThreads.Worker worker;
    /** Written under the queue's lock only (see {@link StreamQueue}); read by this thread without it too. */
    volatile boolean closed;
    /** The next offset to read, kept across reader failures so that a retry neither skips nor repeats a record. */
    private long position;

    Fetcher(String consumerId, String topic, String partition, int generation, long startOffset, OffsetReset reset,
            PartitionLogs logs, StreamQueue queue, int batchRecordsMax, long waitMs) {
        this.consumerId = consumerId;
        this.topic = topic;
        this.partition = partition;
        this.generation = generation;
        this.startOffset = startOffset;
        this.reset = reset;
        this.logs = logs;
        this.queue = queue;
        this.batchRecordsMax = batchRecordsMax;
        this.waitMs = waitMs;
    }

    String topic() {
        return topic;
    }

    String partition() {
        return partition;
    }

    int generation() {
        return generation;
    }

    /** Runs on a thread of {@code threads}; never, if they are shut down (the consumer halted meanwhile). */
    void start(FetcherThreads threads) {
        if (!threads.run(this)) {
            queue.close(this);
        }
    }

    /**
     * Refuses further records, at once, under the queue's lock: from now on this fetcher adds nothing. Its thread is
     * not disturbed here; {@link FetcherThreads#closed} says what becomes of it.
     */
    void close() {
        queue.close(this);
    }

    /**
     * The fetch, on a pool thread. The thread keeps the pool's name ({@code shepherd-fetcher-<consumer>-<n>}):
     * renaming it for each run costs a system call and the JVM's formatting of the native name twice per partition
     * and generation, 12 to 18 ms of CPU per rebalance of 64 consumers × 1,024 partitions.
     */
    @Override
    public void run() {
        fetchUntilClosed();
    }

    private void fetchUntilClosed() {
        position = startOffset;
        int failures = 0;
        while (!closed) {
            try {
                if (position < 0) {
                    long start = reset == OffsetReset.SMALLEST ? logs.earliestOffset(topic, partition)
                            : logs.latestOffset(topic, partition);
                    queue.initialize(this, start);
                    position = start;
                    LOG.info("{}: {}/{} has no committed offset; starting at {} ({})", consumerId, topic, partition,
                            start, reset.wireName());
                }
                fetch();
                failures = 0;
            } catch (InterruptedException e) {
                return; // closed
            } catch (IOException | RuntimeException e) {
                if (closed) {
                    return;
                }
                if (failures++ == 0) {
                    LOG.warn("{}: reading {}/{} at offset {} failed; retrying until it works: {}", consumerId, topic,
                            partition, position, e.toString());
                }
                if (!pause(Math.min(RETRY_MS_MAX, RETRY_MS_MIN << Math.min(failures, 6)))) {
                    return;
                }
            }
        }
    }

    /** Reads from {@link #position} until closed or a read fails. */
    private void fetch() throws IOException, InterruptedException {
        try (PartitionReader reader = logs.reader(topic, partition, position)) {
            while (!closed) {
                for (SourceRecord r : reader.read(batchRecordsMax, waitMs)) {
                    if (!queue.offer(this, new ConsumerRecord(topic, partition, r.offset(), generation, r.value()))) {
                        return;
                    }
                    position = r.offset() + 1;
                }
            }
        }
    }

    private boolean pause(long ms) {
        try {
            Thread.sleep(ms); // retry backoff of a failing log read, on this fetcher's thread
            return !closed;
        } catch (InterruptedException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return topic + "/" + partition + "@" + startOffset;
    }
}
