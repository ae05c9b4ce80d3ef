package shepherd.transport;

import java.util.Optional;
import shepherd.protocol.Request;

/**
 * What the transport tells its user about a connection. One handler serves every connection of a
 * {@link TransportServer} (or each connection of a {@link TransportClient} gets the one passed to {@code connect}).
 *
 * <p><b>Threading.</b> Every callback runs on the connection's Netty I/O thread, in order per connection:
 * {@code onOpen}, then any number of {@code onRequest}, then {@code onClose} exactly once. One thread serves many
 * connections, so a callback must not block or do heavy work: enqueue onto your own event loop and return (the
 * broker and the consumer runtime do exactly that). {@link Connection#respond} may be called later from any
 * thread.
 *
 * <p><b>Failures.</b> An exception thrown by {@code onRequest} is logged once with the connection and request, and
 * the request is answered {@code UNKNOWN} (CONVENTIONS 5). One thrown by {@code onOpen} is logged and closes the
 * connection ({@code onClose} still follows, and a client's connect future fails); one thrown by
 * {@code onClose} is logged.
 */
public interface ConnectionHandler {

    /** The connection is established; requests may be sent on it from now on. */
    default void onOpen(Connection connection) {}

    /**
     * The peer sent a request. Answer it, now or later and from any thread, with
     * {@code connection.respond(correlationId, response)}; exactly once, unless the connection closes first.
     * Until it is answered it counts against {@link TransportConfig#pendingRequestsMax()}: at that many unanswered
     * requests the transport stops reading from the peer.
     */
    void onRequest(Connection connection, int correlationId, Request request);

    /**
     * The connection is closed; every request pending on it has already failed with
     * {@link ConnectionClosedException}. {@code cause} is empty for an orderly close by either side, an
     * {@link InvalidFrameException} when the peer sent bad input, or the I/O error that broke the connection.
     */
    default void onClose(Connection connection, Optional<Throwable> cause) {}
}
