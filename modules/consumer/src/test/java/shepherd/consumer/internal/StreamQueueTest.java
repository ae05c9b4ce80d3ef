package shepherd.consumer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import shepherd.consumer.ConsumerRecord;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionOffset;

/** The queue between fetchers and the application: what Stop exactness and the lease gate rest on. */
class StreamQueueTest {
    private final AtomicLong nowMs = new AtomicLong(1_000);
    private final LeaseGate gate = new LeaseGate(nowMs::get);
    private final TakenOffsets taken = new TakenOffsets();
    private final StreamQueue queue = new StreamQueue(4, taken, gate);
    private final Fetcher fetcher = new Fetcher("c", "t", "1-0", 1, 0, shepherd.protocol.OffsetReset.SMALLEST, null,
            queue, 10, 10);

    private static ConsumerRecord record(long offset) {
        return new ConsumerRecord("t", "1-0", offset, 1, new byte[] {1});
    }

    @Test
    void takingARecordAdvancesItsPartitionsOffset() throws Exception {
        taken.reset(List.of(new PartitionAssignment("t", "1-0", 0, 0)));
        assertTrue(queue.offer(fetcher, record(0)));
        assertTrue(queue.offer(fetcher, record(1)));
        assertEquals(0, queue.take(0).offset());
        assertEquals(List.of(new PartitionOffset("t", "1-0", 1)), taken.snapshot());
    }

    @Test
    void aClosedFetcherAddsNothingAndAClearedQueueGivesNothing() throws Exception {
        assertTrue(queue.offer(fetcher, record(0)));
        queue.close(fetcher);
        assertFalse(queue.offer(fetcher, record(1)), "refused once closed");
        assertEquals(1, queue.clear());
        assertNull(queue.take(TimeUnit.MILLISECONDS.toNanos(20)));
    }

    @Test
    void aRunOutLeaseFencesTheQueueUntilTheLoopStopsTheFetchers() throws Exception {
        assertTrue(queue.offer(fetcher, record(0)));
        gate.set(1_500);
        nowMs.set(1_500); // the process resumes at its deadline: records are queued, none may be taken
        assertNull(queue.take(TimeUnit.MILLISECONDS.toNanos(50)), "fenced by the lease");
        assertEquals(1, queue.size());
        gate.set(3_000); // a valid ping renewed it
        assertEquals(0, queue.take(0).offset());
    }

    @Test
    void theEndComesOnceTheQueueIsEmpty() throws Exception {
        assertTrue(queue.offer(fetcher, record(0)));
        queue.end();
        assertFalse(queue.ended());
        assertEquals(0, queue.take(0).offset());
        assertSame(StreamQueue.END, queue.take(-1));
        assertTrue(queue.ended());
    }
}
