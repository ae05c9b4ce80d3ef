package shepherd.consumer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import shepherd.consumer.ConsumerRecord;
import shepherd.consumer.MemorySource;
import shepherd.consumer.PartitionLogs;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.PartitionAssignment;

/** Fetchers on a pool of reused threads: each run is stopped by its own close, and by nothing else. */
class FetcherTest {
    /** One thread: every fetcher runs on the same one, after the one before it ended. */
    private final ExecutorService pool = Executors.newSingleThreadExecutor();
    private final MemorySource source = new MemorySource();
    private final PartitionLogs logs = source.open(Map.of());

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

    private record Started(Fetcher fetcher, StreamQueue queue) {}

    /**
     * A fetcher of {@code partition} started on the pool, its log 100 records long: more than its queue holds, so
     * once the queue is full it waits for room, interruptibly, until it is closed.
     */
    private Started start(String partition, int generation) {
        source.fill("t", partition, 100);
        StreamQueue queue = queue(partition);
        Fetcher fetcher = fetcher(partition, generation, queue);
        fetcher.start(pool);
        return new Started(fetcher, queue);
    }

    @Test
    void aLateCloseOfTheFetcherBeforeDoesNotStopTheNextOneOnTheSameThread() throws Exception {
        Started a = start("1-0", 1);
        assertEquals(0, take(a.queue()).offset());
        a.fetcher().close();

        Started b = start("1-1", 2); // on the same thread: the pool has one
        assertEquals(0, take(b.queue()).offset());

        a.fetcher().close(); // again, late: as halt() closes whatever it finds
        for (long offset = 1; offset <= 10; offset++) {
            assertEquals(offset, take(b.queue()).offset(), "the next fetcher goes on");
        }
        b.fetcher().close();
    }

    @Test
    void aFetcherClosedBeforeItsRunBeginsNeverReads() throws Exception {
        Started running = start("1-0", 1); // holds the pool's one thread
        take(running.queue());
        Started waiting = start("1-1", 1);
        waiting.fetcher().close();
        running.fetcher().close();
        assertNull(waiting.queue().take(TimeUnit.MILLISECONDS.toNanos(100)), "nothing read for a closed fetcher");
        assertNull(pool.submit(() -> { }).get(5, TimeUnit.SECONDS), "the thread is free again");
    }
}
