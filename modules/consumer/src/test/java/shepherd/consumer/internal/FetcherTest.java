package shepherd.consumer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /** Whether a live thread has this name. */
    private static boolean threadNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name));
    }

    @Test
    void aLateCloseOfTheFetcherBeforeDoesNotStopTheNextOneOnTheSameThread() throws Exception {
        // More records than a queue holds: each fetcher waits for room, interruptibly, until it is closed.
        source.fill("t", "1-0", 100);
        source.fill("t", "1-1", 100);
        StreamQueue first = queue("1-0");
        Fetcher a = fetcher("1-0", 1, first);
        a.start(pool);
        assertEquals(0, take(first).offset());
        assertTrue(threadNamed("shepherd-fetcher-c-t/1-0"), "the thread bears the fetcher's name");
        a.close();

        StreamQueue second = queue("1-1");
        Fetcher b = fetcher("1-1", 2, second);
        b.start(pool);
        assertEquals(0, take(second).offset());
        assertTrue(threadNamed("shepherd-fetcher-c-t/1-1"), "the same thread, now the next fetcher's");

        a.close(); // again, late: as halt() closes whatever it finds
        for (long offset = 1; offset <= 10; offset++) {
            assertEquals(offset, take(second).offset(), "the next fetcher goes on");
        }
        b.close();
    }

    @Test
    void aFetcherClosedBeforeItsRunBeginsNeverReads() throws Exception {
        source.fill("t", "1-0", 100);
        source.fill("t", "1-1", 100);
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
