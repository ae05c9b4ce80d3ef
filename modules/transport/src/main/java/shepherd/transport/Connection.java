package shepherd.transport;

import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import shepherd.protocol.Request;
import shepherd.protocol.Response;

/**
 * One framed TCP connection, symmetric: either end may send requests on it (the coordinator sends Ping, Stop and
 * Start on the connection the consumer opened, DESIGN §3), and each end answers the requests it receives through
 * {@link #respond}. The header's {@code kind} tells the receiver whether a frame is a request (handed to
 * {@link ConnectionHandler#onRequest}) or the response to one of its own requests (completing the future that
 * {@link #request} returned).
 *
 * <p>Every method is thread-safe and never blocks. Futures returned here complete on the connection's I/O thread:
 * a dependent stage attached with {@code thenApply}/{@code whenComplete} runs there too, so it must not block; hand
 * heavier work to your own executor (or use the {@code *Async} variants with one).
 */
public interface Connection {

    /** A process-wide unique id, for logs and maps; also in {@link #toString()}. */
    long id();

    /** The peer's address; still answers after the connection closed. */
    SocketAddress remoteAddress();

    /**
     * Sends {@code request} with a fresh correlation id and the configured
     * {@link TransportConfig#requestTimeoutMs()}.
     *
     * @return completes with the peer's response (of the same api), or exceptionally with a
     *     {@link TransportException}: {@link RequestTimeoutException}, {@link ConnectionClosedException},
     *     {@link TooManyPendingRequestsException}, {@link WriteBufferFullException} (the last two without sending
     *     anything), {@link UnexpectedResponseException}; or the protocol's {@code FrameTooLargeException} when the
     *     request does not fit {@link TransportConfig#frameBytesMax()}
     */
    CompletableFuture<Response> request(Request request);

    /** As {@link #request(Request)} with a timeout of its own; {@code timeoutMs} must be positive. */
    CompletableFuture<Response> request(Request request, long timeoutMs);

    /**
     * Answers the request that arrived with {@code correlationId}. A response to a connection that has closed in
     * the meantime is dropped (the peer will never see it, DESIGN §5). A response that is too large to send is
     * replaced by the api's error response with {@code UNKNOWN}, and logged.
     *
     * @throws IllegalArgumentException if {@code response} is of another api than the request
     * @throws IllegalStateException if no request with this correlation id awaits a response on this open
     *     connection (already answered, or never received): answering twice would corrupt the peer's matching
     */
    void respond(int correlationId, Response response);

    /**
     * Closes gracefully: stops reading, lets the bytes already queued (responses included) reach the socket, then
     * closes it; forced after {@link TransportConfig#closeTimeoutMs()} if the peer does not read. Pending requests
     * then fail with {@link ConnectionClosedException} and the handler's {@link ConnectionHandler#onClose} runs.
     * Idempotent.
     *
     * @return {@link #closeFuture()}
     */
    CompletableFuture<Void> close();

    /** Completes (never exceptionally) once the connection is closed and {@code onClose} has run. */
    CompletableFuture<Void> closeFuture();

    /** True until the connection starts closing. */
    boolean isOpen();

    /** Whether a request sent now would be accepted by the write buffer (see {@link WriteBufferFullException}). */
    boolean isWritable();

    /** Requests we sent on this connection that await a response. */
    int pendingRequests();

    /** Bytes written to this connection but not yet taken by the socket. */
    long unsentBytes();
}
