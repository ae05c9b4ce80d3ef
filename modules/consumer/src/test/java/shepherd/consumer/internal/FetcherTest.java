package shepherd.consumer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import shepherd.consumer.ConsumerRecord;
import shepherd.consumer.MemorySource;
import shepherd.consumer.PartitionLogs;
import shepherd.consumer.PartitionReader;
import shepherd.consumer.SourceRecord;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.PartitionAssignment;

/**
 * Fetchers on a pool of reused threads: each run is stopped by its own close, and by nothing else; a closed
 * fetcher's thread lingers in its read until the next fetcher is handed to it or it is released.
 */
class FetcherTest {
    private static final long WAIT_S = 5;

    private final FetcherThreads threads = new FetcherThreads("fetcher-test-");
    private final MemorySource source = new MemorySource();
    private final PartitionLogs memory = source.open(Map.of());

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    private static StreamQueue queue(String partition) {
        TakenOffsets taken = new TakenOffsets();
        taken.reset(List.of(new PartitionAssignment("t", partition, 0, 0)));
        return new StreamQueue(4, taken, new LeaseGate(System::currentTimeMillis));
    }

    private static ConsumerRecord take(StreamQueue queue) throws InterruptedException {
        ConsumerRecord r = queue.take(TimeUnit.SECONDS.toNanos(WAIT_S));
        assertNotNull(r, "a record within " + WAIT_S + " s");
        return r;
    }

    private record Started(Fetcher fetcher, StreamQueue queue) {}

    private Started start(PartitionLogs logs, String partition, int generation) {
        StreamQueue queue = queue(partition);
        Fetcher fetcher = new Fetcher("c", "t", partition, generation, 0, OffsetReset.SMALLEST, logs, queue, 10, 10);
        fetcher.start(threads);
        return new Started(fetcher, queue);
    }

    /**
     * A fetcher of {@code partition} started on the pool, its log 100 records long: more than its queue holds, so
     * once the queue is full it waits for room, interruptibly, until it is closed.
     */
    private Started startOnMemory(String partition, int generation) {
        source.fill("t", partition, 100);
        return start(memory, partition, generation);
    }

    /**
     * A fetcher of {@code partition} (generation 1) that began its read and was then stopped: its thread lingers in
     * the read. With {@code ignoringInterrupts}, the read notices an interrupt only once {@link Read#release}d.
     */
    private Started stoppedInItsRead(Reads reads, String partition, boolean ignoringInterrupts)
            throws InterruptedException {
        reads.of(partition).ignoreInterrupts = ignoringInterrupts;
        Started s = start(reads, partition, 1);
        reads.of(partition).awaitReading();
        stop(s);
        return s;
    }

    /** What a Stop does to a fetcher. */
    private void stop(Started s) {
        s.fetcher().close();
        threads.closed(s.fetcher());
    }

    @Test
    void aLateCloseOfTheFetcherBeforeDoesNotStopTheNextOneOnTheSameThread() throws Exception {
        Started a = startOnMemory("1-0", 1);
        assertEquals(0, take(a.queue()).offset());
        stop(a);

        Started b = startOnMemory("1-1", 2);
        assertEquals(0, take(b.queue()).offset());
        assertEquals(1, threads.threads(), "the same thread");

        a.fetcher().close(); // again, late: as halt() closes whatever it finds
        for (long offset = 1; offset <= 10; offset++) {
            assertEquals(offset, take(b.queue()).offset(), "the next fetcher goes on");
        }
        stop(b);
    }

    @Test
    void aStopLeavesTheReadAloneAndTheNextStartEndsItOnTheSameThread() throws Exception {
        Reads reads = new Reads();
        Started a = stoppedInItsRead(reads, "1-0", false);
        assertFalse(reads.of("1-0").ended.await(100, TimeUnit.MILLISECONDS), "the closed fetcher's read lingers");

        Started b = start(reads, "1-1", 2);
        assertTrue(reads.of("1-0").ended.await(WAIT_S, TimeUnit.SECONDS), "the Start ends the lingering read");
        reads.of("1-1").awaitReading();
        assertEquals(1, threads.threads(), "and the new fetcher runs on that thread");
        assertNull(a.queue().take(0), "the closed fetcher added nothing");
        stop(b);
    }

    @Test
    void anInterruptMeantForAClosedFetcherNeverReachesTheNextRunOnItsThread() throws Exception {
        Reads reads = new Reads();
        stoppedInItsRead(reads, "1-0", true); // a source that notices the interrupt only once its read returns
        Read first = reads.of("1-0");

        Started b = start(reads, "1-1", 2); // interrupts the thread, which does not leave the read yet
        first.release.countDown(); // now it does, by itself, with the interrupt still pending
        Read second = reads.of("1-1");
        second.awaitReading();
        assertFalse(second.ended.await(200, TimeUnit.MILLISECONDS), "the new fetcher's read goes on");
        threads.release(); // nothing lingers any more: the handed-over thread is not in it
        assertFalse(second.ended.await(200, TimeUnit.MILLISECONDS), "and a release does not end it either");
        stop(b);
    }

    @Test
    void releaseEndsLingeringReadsAndTheirThreadsServeLaterFetchers() throws Exception {
        Reads reads = new Reads();
        stoppedInItsRead(reads, "1-0", false);
        threads.release();
        assertTrue(reads.of("1-0").ended.await(WAIT_S, TimeUnit.SECONDS), "released");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (threads.idleThreads() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(1, threads.idleThreads(), "the released thread is idle");

        start(reads, "1-1", 2);
        reads.of("1-1").awaitReading();
        assertEquals(1, threads.threads(), "the idle thread took the next fetcher");
    }

    @Test
    void aFetcherClosedBeforeItsRunBeginsNeverReads() throws Exception {
        Reads reads = new Reads();
        stoppedInItsRead(reads, "1-0", true);
        Read first = reads.of("1-0");
        Started waiting = start(reads, "1-1", 2); // handed to a's thread, still in a's read
        stop(waiting);
        first.release.countDown();
        assertTrue(first.ended.await(WAIT_S, TimeUnit.SECONDS));
        Thread.sleep(100);
        assertFalse(reads.readBegun("1-1"), "no read for a fetcher closed before its run began");
        assertNull(waiting.queue().take(0));
    }

    @Test
    void shutdownEndsEveryReadAndRunsNothingMore() throws Exception {
        Reads reads = new Reads();
        start(reads, "1-0", 1);
        reads.of("1-0").awaitReading();
        threads.shutdownNow();
        assertTrue(reads.of("1-0").ended.await(WAIT_S, TimeUnit.SECONDS));
        Started late = start(reads, "1-1", 2);
        assertTrue(late.fetcher().closed, "refused and closed");
        assertFalse(reads.readBegun("1-1"));
    }

    /** One reader's read: blocks until interrupted (or, ignoring interrupts, until released), then ends. */
    private static final class Read {
        final CountDownLatch reading = new CountDownLatch(1);
        final CountDownLatch ended = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean ignoreInterrupts;

        void awaitReading() throws InterruptedException {
            assertTrue(reading.await(WAIT_S, TimeUnit.SECONDS), "the fetcher reads within " + WAIT_S + " s");
        }

        List<SourceRecord> read() throws InterruptedException {
            reading.countDown();
            try {
                if (!ignoreInterrupts) {
                    Thread.sleep(Long.MAX_VALUE);
                }
                boolean interrupted = false;
                while (true) {
                    try {
                        release.await();
                        break;
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                if (interrupted) {
                    Thread.currentThread().interrupt(); // noticed later, as such a source would
                }
                return List.of();
            } finally {
                ended.countDown();
            }
        }
    }

    /** Empty partitions whose reads block, one {@link Read} per partition (one reader each in these tests). */
    private static final class Reads implements PartitionLogs {
        private final Map<String, Read> reads = new ConcurrentHashMap<>();

        Read of(String partition) {
            return reads.computeIfAbsent(partition, p -> new Read());
        }

        boolean readBegun(String partition) {
            return reads.get(partition) != null && reads.get(partition).reading.getCount() == 0;
        }

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
            Read read = of(partition);
            return new PartitionReader() {
                @Override
                public List<SourceRecord> read(int maxRecords, long waitMs) throws InterruptedException {
                    return read.read();
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public void close() {}
    }
}
