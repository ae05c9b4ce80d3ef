package shepherd.transport.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.protocol.ApiKey;
import shepherd.protocol.Frame;
import shepherd.protocol.Response;
import shepherd.transport.ConnectionClosedException;
import shepherd.transport.RequestTimeoutException;
import shepherd.transport.UnexpectedResponseException;

/**
 * The requests one connection sent that await their responses, by the correlation id it chose from its own counter
 * (a RESPONSE frame is matched here), with their timeouts and the bound {@code pendingRequestsMax} on how many there
 * are. Any thread may call every method but {@link #complete}, which runs on the channel's event loop.
 *
 * <p>Whoever removes an entry (response, timeout, write failure, drain at the close) owns completing it:
 * {@link #take(Entry)} is the only removal and is true for exactly one caller per entry. A slot is held from
 * {@link #tryAcquireSlot} until that removal, or until {@link #releaseSlot} for a request refused before it was
 * added.
 */
final class PendingRequests {
    private static final Logger log = LoggerFactory.getLogger(PendingRequests.class);

    /** A request we sent that awaits its response. */
    static final class Entry {
        final int correlationId;
        final ApiKey apiKey;
        final long timeoutMs;
        final CompletableFuture<Response> future = new CompletableFuture<>();
        volatile Future<?> timeout;
        volatile boolean taken;

        private Entry(int correlationId, ApiKey apiKey, long timeoutMs) {
            this.correlationId = correlationId;
            this.apiKey = apiKey;
            this.timeoutMs = timeoutMs;
        }
    }

    private final Object connection; // names the connection in the exceptions it completes entries with
    private final int max;
    private final ConcurrentHashMap<Integer, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicInteger count = new AtomicInteger();
    private final AtomicInteger nextCorrelationId = new AtomicInteger();
    private long unknownResponses; // event-loop confined

    PendingRequests(Object connection, int pendingRequestsMax) {
        this.connection = connection;
        this.max = pendingRequestsMax;
    }

    /** Reserves room for one more request; false at {@code pendingRequestsMax}. */
    boolean tryAcquireSlot() {
        while (true) {
            int n = count.get();
            if (n >= max) {
                return false;
            }
            if (count.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Gives back the slot of a request refused before it was added. */
    void releaseSlot() {
        count.decrementAndGet();
    }

    int nextCorrelationId() {
        return nextCorrelationId.getAndIncrement();
    }

    /** Adds the request holding the slot just acquired; null if {@code correlationId} is still pending. */
    Entry add(int correlationId, ApiKey apiKey, long timeoutMs) {
        Entry entry = new Entry(correlationId, apiKey, timeoutMs);
        return entries.putIfAbsent(correlationId, entry) == null ? entry : null;
    }

    /** Fails {@code entry} with a timeout after its {@code timeoutMs}, on {@code timer} (the channel's event loop). */
    void scheduleTimeout(Entry entry, ScheduledExecutorService timer) {
        try {
            entry.timeout = timer.schedule(() -> fail(entry, new RequestTimeoutException(
                    connection.toString(), entry.apiKey, entry.correlationId, entry.timeoutMs)),
                    entry.timeoutMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) { // the event loop is shutting down
            fail(entry, new ConnectionClosedException(connection + " is shutting down"));
            return;
        }
        if (entry.taken) { // completed before the timeout was stored: take() could not cancel it
            entry.timeout.cancel(false);
        }
    }

    /**
     * Completes the request a RESPONSE {@code frame} answers; a response of another api fails it instead. One that
     * matches no pending request (a timed-out request's late answer lands here too) is dropped.
     */
    void complete(Frame frame) {
        int correlationId = frame.header().correlationId();
        Entry entry = entries.get(correlationId);
        if (entry == null || !take(entry)) {
            logUnknownResponse(frame);
            return;
        }
        Response response = (Response) frame.message();
        if (response.apiKey() != entry.apiKey) {
            log.warn("{}: {} request {} was answered with a {} response", connection, entry.apiKey, correlationId,
                    response.apiKey());
            entry.future.completeExceptionally(new UnexpectedResponseException(connection.toString(), entry.apiKey,
                    response.apiKey(), correlationId));
        } else {
            entry.future.complete(response);
        }
    }

    /** Fails {@code entry} with {@code cause} unless someone else has taken it. */
    void fail(Entry entry, Throwable cause) {
        if (take(entry)) {
            entry.future.completeExceptionally(cause);
        }
    }

    /** The connection closed: every entry still pending fails with the cause {@code closed} gives for it. */
    void failAll(Function<Entry, Throwable> closed) {
        for (Entry entry : entries.values()) {
            fail(entry, closed.apply(entry));
        }
    }

    int count() {
        return count.get();
    }

    /** Once per connection at WARN, then at DEBUG. */
    private void logUnknownResponse(Frame frame) {
        unknownResponses++;
        if (unknownResponses == 1) {
            log.warn("{}: dropping a {} response with correlation id {} that matches no pending request"
                            + " (further ones are logged at DEBUG)", connection, frame.header().apiKey(),
                    frame.header().correlationId());
        } else {
            log.debug("{}: dropping a {} response with unknown correlation id {} ({} so far)", connection,
                    frame.header().apiKey(), frame.header().correlationId(), unknownResponses);
        }
    }

    /** The only removal: true for exactly one caller per entry, which then completes it. */
    private boolean take(Entry entry) {
        if (!entries.remove(entry.correlationId, entry)) {
            return false;
        }
        entry.taken = true;
        Future<?> timeout = entry.timeout;
        if (timeout != null) {
            timeout.cancel(false);
        }
        count.decrementAndGet();
        return true;
    }
}
