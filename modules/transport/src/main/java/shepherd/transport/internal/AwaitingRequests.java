package shepherd.transport.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import shepherd.protocol.Header;

/**
 * The requests the peer sent on one connection that await our response, by the peer's correlation id (a REQUEST
 * frame is added here, {@code respond} takes it out). Their number decides whether we read the peer: at
 * {@code pendingRequestsMax} we stop, so a peer that does not read our answers cannot make us queue more of them.
 * Any thread may call every method.
 */
final class AwaitingRequests {
    private final int max;
    private final ConcurrentHashMap<Integer, Header> requests = new ConcurrentHashMap<>();
    private final AtomicInteger count = new AtomicInteger();

    AwaitingRequests(int pendingRequestsMax) {
        this.max = pendingRequestsMax;
    }

    /** Adds a request of the peer; false if its correlation id belongs to one we have not answered yet. */
    boolean add(Header request) {
        if (requests.putIfAbsent(request.correlationId(), request) != null) {
            return false;
        }
        count.incrementAndGet();
        return true;
    }

    /** Takes out the request with {@code correlationId} to answer it; null if none awaits. Counted until released. */
    Header claim(int correlationId) {
        return requests.remove(correlationId);
    }

    /** Puts back a request {@link #claim claimed} but not answered (the answer was of another api). */
    void unclaim(Header request) {
        requests.put(request.correlationId(), request);
    }

    /** Stops counting a claimed request; true if that brought the count under the limit, so reading may resume. */
    boolean release() {
        return count.decrementAndGet() == max - 1;
    }

    /** Whether as many requests await our answer as we let a peer have. */
    boolean full() {
        return count.get() >= max;
    }

    int count() {
        return count.get();
    }

    /** The connection closed: nobody will see our answers. */
    void clear() {
        requests.clear();
        count.set(0);
    }
}
