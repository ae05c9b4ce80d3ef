package shepherd.consumer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import shepherd.consumer.ConsumerRecord;
import shepherd.consumer.PartitionLogs;
import shepherd.consumer.PartitionReader;
import shepherd.consumer.SourceRecord;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.PartitionAssignment;

/** Fetchers on a pool of reused threads: each run is stopped by its own close, and by nothing else. */
class FetcherTest {
    /** One thread: every fetcher runs on the same one, after the one before it ended. */
    private final ExecutorService pool = Executors.newSingleThreadExecutor();
    private final AtomicReference<String> readerThread = new AtomicReference<>();

    /** An endless log: one record per read, each after a short, interruptible wait. */
    private final PartitionLogs logs = new PartitionLogs() {
        @Override
        public long earliestOffset(String topic, String partition) {
            return 0;
        }

        @Override
        public long latestOffset(String topic, String partition) {
            return 0;
        }

        @Override
        public PartitionReader reader(String topic, String partition, long offset) {
            return new PartitionReader() {
                private long next = offset;

                @Override
                public List<SourceRecord> read(int maxRecords, long waitMs) throws InterruptedException {
                    readerThread.set(Thread.currentThread().getName());
                    Thread.sleep(2);
                    return List.of(new SourceRecord(next++, new byte[] {1}));
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public void close() {}
    };

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private static StreamQueue queue(String partition) {
        TakenOffsets taken = new TakenOffsets();
        taken.reset(List.of(new PartitionAssignment("t", partition, 0, 0)));
        return new StreamQueue(4, taken, new LeaseGate(System::currentTimeMillis));
    }

    private Fetcher fetcher(String partition, int generation, StreamQueue queue) {
        return new Fetcher("c", "t", partition, generation, 0, OffsetReset.SMALLEST, logs, queue, 10, 10);
    }

    private static ConsumerRecord take(StreamQueue queue) throws InterruptedException {
        ConsumerRecord r = queue.take(TimeUnit.SECONDS.toNanos(5));
        assertNotNull(r, "a record within 5 s");
        return r;
    }

    @Test
    void aLateCloseOfTheFetcherBeforeDoesNotStopTheNextOneOnTheSameThread() throws Exception {
        StreamQueue first = queue("1-0");
        Fetcher a = fetcher("1-0", 1, first);
        a.start(pool);
        assertEquals(0, take(first).offset());
        assertEquals("shepherd-fetcher-c-t/1-0", readerThread.get(), "the thread bears the fetcher's name");
        a.close();

        StreamQueue second = queue("1-1");
        Fetcher b = fetcher("1-1", 2, second);
        b.start(pool);
        assertEquals(0, take(second).offset());
        assertEquals("shepherd-fetcher-c-t/1-1", readerThread.get(), "the same thread, now the next fetcher's");

        a.close(); // again, late: as halt() closes whatever it finds
        for (long offset = 1; offset <= 5; offset++) {
            assertEquals(offset, take(second).offset(), "the next fetcher goes on");
        }
        b.close();
    }

    @Test
    void aFetcherClosedBeforeItsRunBeginsNeverReads() throws Exception {
        StreamQueue busy = queue("1-0");
        Fetcher running = fetcher("1-0", 1, busy);
        running.start(pool); // holds the pool's one thread
        take(busy);
        StreamQueue never = queue("1-1");
        Fetcher waiting = fetcher("1-1", 1, never);
        waiting.start(pool);
        waiting.close();
        running.close();
        assertEquals(null, never.take(TimeUnit.MILLISECONDS.toNanos(100)), "nothing read for a closed fetcher");
        assertTrue(pool.submit(() -> { }).get(5, TimeUnit.SECONDS) == null, "the thread is free again");
    }
}
