package shepherd.consumer;

import java.time.Duration;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import shepherd.consumer.internal.StreamQueue;

/**
 * One stream of records for the application (Kafka 0.8's {@code KafkaStream}): iterate it on one thread, or
 * {@link #poll} it. The coordinator decides which partitions feed which stream; they change with each rebalance,
 * and a record is never delivered by two consumers' streams for the same generation. Taking a record (from
 * {@code next()} or {@code poll}) marks it consumed for the commit.
 *
 * <p>A stream ends (the iterator's {@code hasNext()} returns false, {@code poll} returns null at once) when the
 * consumer is shut down.
 */
public final class MessageStream implements Iterable<ConsumerRecord> {
    private final String name;
    private final StreamQueue queue;
    private final long consumerTimeoutMs;

    MessageStream(String name, StreamQueue queue, long consumerTimeoutMs) {
        this.name = name;
        this.queue = queue;
        this.consumerTimeoutMs = consumerTimeoutMs;
    }

    /**
     * The next record, waiting up to {@code timeout}; null when none came in time or the consumer is shut down.
     */
    public ConsumerRecord poll(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        ConsumerRecord r = queue.take(Math.max(0, timeout.toNanos()));
        return r == StreamQueue.END ? null : r;
    }

    /**
     * A blocking iterator: {@code hasNext()} waits up to the consumer's {@code consumerTimeoutMs} (for ever by
     * default) and then throws {@link ConsumerTimeoutException}; it returns false only once the consumer is shut
     * down. An interrupt while waiting throws {@link IllegalStateException} with the interrupt flag set again.
     */
    @Override
    public Iterator<ConsumerRecord> iterator() {
        return new Iterator<>() {
            private ConsumerRecord next;

            @Override
            public boolean hasNext() {
                if (next == null) {
                    try {
                        next = queue.take(StreamQueue.nanos(consumerTimeoutMs));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted while waiting for a record of " + name, e);
                    }
                    if (next == null) {
                        throw new ConsumerTimeoutException("no record on " + name + " within " + consumerTimeoutMs
                                + " ms");
                    }
                }
                return next != StreamQueue.END;
            }

            @Override
            public ConsumerRecord next() {
                if (!hasNext()) {
                    throw new NoSuchElementException(name + " has ended: the consumer is shut down");
                }
                ConsumerRecord r = next;
                next = null;
                return r;
            }
        };
    }

    /** True once the consumer is shut down and every record was taken: a poll loop stops here. */
    public boolean ended() {
        return queue.ended();
    }

    /** Records fetched but not yet taken. */
    public int queued() {
        return queue.size();
    }

    @Override
    public String toString() {
        return name;
    }
}
