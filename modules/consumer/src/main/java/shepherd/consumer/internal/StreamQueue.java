package shepherd.consumer.internal;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import shepherd.consumer.ConsumerRecord;

/**
 * The bounded queue behind one stream: fetchers put, the application takes. One lock guards the records, the
 * closed flags of the fetchers feeding it and the taken offsets of its partitions, which is what makes Stop exact
 * (seed Stop handler 1.2, DESIGN §6): once {@link #close(Fetcher)} and {@link #clear()} returned,
 * <ol>
 *   <li>no record of the stopped generation is left to take (cleared under the lock),</li>
 *   <li>no fetcher of it can add one (it checks its closed flag under the same lock), and</li>
 *   <li>no take is half done: a take removes the record and advances the offset in one critical section, so the
 *       offsets read after the stop count exactly the records the application got.</li>
 * </ol>
 */
public final class StreamQueue {
    /** What {@link #take} returns once the consumer is shut down and the queue is empty. */
    public static final ConsumerRecord END = new ConsumerRecord("", "", -1, -1, new byte[0]);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();
    private final ArrayDeque<ConsumerRecord> records = new ArrayDeque<>();
    private final int capacity;
    private final TakenOffsets taken;
    private final LeaseGate lease;
    private boolean ended;

    StreamQueue(int capacity, TakenOffsets taken, LeaseGate lease) {
        this.capacity = capacity;
        this.taken = taken;
        this.lease = lease;
    }

    /** How long a taker waits before it looks again at a lease that ran out (the loop clears the queue soon). */
    private static final long FENCED_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * Adds a record of {@code fetcher}, waiting while the queue is full; false if the fetcher was closed (then the
     * record is dropped: its partition belongs to the next generation's fetcher, which starts from the offsets).
     */
    boolean offer(Fetcher fetcher, ConsumerRecord record) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (records.size() >= capacity && !fetcher.closed) {
                notFull.await();
            }
            if (fetcher.closed) {
                return false;
            }
            records.addLast(record);
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Records where a partition without a committed offset starts, unless its fetcher is already closed. */
    void initialize(Fetcher fetcher, long offset) {
        lock.lock();
        try {
            if (!fetcher.closed) {
                taken.initialize(fetcher.topic(), fetcher.partition(), offset);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next record, waiting up to {@code timeoutNanos} (negative: for ever); null on timeout, {@link #END} once
     * the consumer is shut down and nothing is left.
     */
    public ConsumerRecord take(long timeoutNanos) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            long nanos = timeoutNanos;
            while (records.isEmpty() || !lease.open()) {
                if (ended && records.isEmpty()) {
                    return END;
                }
                // A run-out lease fences the queue (LeaseGate); nothing signals its end, so look again soon.
                long slice = records.isEmpty() ? Long.MAX_VALUE : FENCED_RECHECK_NANOS;
                if (timeoutNanos < 0) {
                    if (slice == Long.MAX_VALUE) {
                        notEmpty.await();
                    } else {
                        notEmpty.awaitNanos(slice);
                    }
                } else {
                    if (nanos <= 0) {
                        return null;
                    }
                    long waited = Math.min(nanos, slice);
                    nanos -= waited - notEmpty.awaitNanos(waited);
                }
            }
            ConsumerRecord r = records.pollFirst();
            taken.advance(r.topic(), r.partition(), r.offset() + 1);
            notFull.signal();
            return r;
        } finally {
            lock.unlock();
        }
    }

    /** Closes {@code fetcher} as far as this queue is concerned: from now on its records are refused. */
    void close(Fetcher fetcher) {
        lock.lock();
        try {
            fetcher.closed = true;
            notFull.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Drops every queued record (their partitions were stopped); the application will not see them. */
    int clear() {
        lock.lock();
        try {
            int dropped = records.size();
            records.clear();
            notFull.signalAll();
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    /** The consumer is shut down: takers get {@link #END} once the queue is empty. */
    void end() {
        lock.lock();
        try {
            ended = true;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Whether the consumer is shut down and nothing is left to take. */
    public boolean ended() {
        lock.lock();
        try {
            return ended && records.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    public int size() {
        lock.lock();
        try {
            return records.size();
        } finally {
            lock.unlock();
        }
    }

    public static long nanos(long timeoutMs) {
        return timeoutMs < 0 ? -1 : TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    }
}
