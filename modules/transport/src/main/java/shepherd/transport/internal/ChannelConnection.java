package shepherd.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.protocol.Frame;
import shepherd.protocol.FrameCodec;
import shepherd.protocol.FrameKind;
import shepherd.protocol.Header;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.transport.Connection;
import shepherd.transport.ConnectionClosedException;
import shepherd.transport.ConnectionHandler;
import shepherd.transport.InvalidFrameException;
import shepherd.transport.TooManyPendingRequestsException;
import shepherd.transport.TransportConfig;
import shepherd.transport.WriteBufferFullException;

/**
 * A {@link Connection} and the last handler of its channel's pipeline.
 *
 * <p><b>Two correlation maps.</b> Both ends send requests, so each end keeps {@link PendingRequests} (requests we
 * sent, by the correlation id we chose; a RESPONSE frame is matched there, and the request timeouts live there) and
 * {@link AwaitingRequests} (requests we received, by the peer's id, until {@link #respond}; a REQUEST frame is added
 * there). The two id spaces are independent. This class is the channel's side: the pipeline events, the admission
 * of requests, the writes, back-pressure on reading and the close.
 *
 * <p><b>Threads.</b> Frames, timeouts and the close arrive on the channel's event loop; {@link #request},
 * {@link #respond} and {@link #close} may be called from any thread. {@link #request} does its admission checks and
 * the encoding on the caller's thread, so a refusal is immediate and each accepted request costs the event loop
 * exactly one queued write (whose bytes Netty counts against the water marks at once). The maps are concurrent;
 * the one race that matters, a request registered while the connection closes, is closed by the order
 * <ol>
 *   <li>{@code request} puts into {@code pending}, then reads {@code open};</li>
 *   <li>{@code channelInactive} clears {@code open}, then drains {@code pending};</li>
 * </ol>
 * so either the request sees the close and fails itself, or the drain sees the request. Whoever removes an entry
 * from {@code pending} (response, timeout, write failure, drain) owns completing it ({@link PendingRequests}).
 *
 * <p><b>Back-pressure.</b> Outbound: a request is refused with {@link TooManyPendingRequestsException} at
 * {@code pendingRequestsMax} and with {@link WriteBufferFullException} while the channel is unwritable (unsent bytes
 * above the high water mark). Responses are never refused (the peer is waiting for them); instead
 * {@link #updateReading} stops reading the peer while we cannot write or while {@code pendingRequestsMax} of its
 * requests await our answer, so a peer that does not read what we send cannot make us buffer more than the water
 * mark plus the answers to the requests already read.
 */
public final class ChannelConnection extends ChannelDuplexHandler implements Connection {
    private static final Logger log = LoggerFactory.getLogger(ChannelConnection.class);
    private static final AtomicLong IDS = new AtomicLong();

    private final long id = IDS.incrementAndGet();
    private final Channel channel;
    private final TransportConfig config;
    private final FrameCodec codec;
    private final ConnectionHandler handler;

    private final PendingRequests pending;
    private final AwaitingRequests awaiting;

    private final CompletableFuture<Connection> opened = new CompletableFuture<>();
    private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();
    private volatile boolean open = true;
    private volatile SocketAddress remoteAddress;

    // Event-loop confined.
    private boolean active;
    private boolean closing;
    private Throwable closeCause;
    private Runnable onPeerRejected = () -> { };

    public ChannelConnection(Channel channel, TransportConfig config, FrameCodec codec, ConnectionHandler handler) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.config = Objects.requireNonNull(config, "config");
        this.codec = Objects.requireNonNull(codec, "codec");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.pending = new PendingRequests(this, config.pendingRequestsMax());
        this.awaiting = new AwaitingRequests(config.pendingRequestsMax());
        this.remoteAddress = channel.remoteAddress();
        channel.closeFuture().addListener(closed -> {
            if (!active) { // never active (a failed connect, whose own future says why): no channelInactive
                open = false;
                closeFuture.complete(null);
            }
        });
    }

    /** Installs the framing, the codec and this connection on the channel's pipeline. */
    public static ChannelConnection install(Channel channel, TransportConfig config, FrameCodec codec,
                                            ConnectionHandler handler) {
        ChannelConnection connection = new ChannelConnection(channel, config, codec, handler);
        channel.pipeline()
                .addLast("frame-length", new FrameLengthDecoder(codec))
                .addLast("frame-body", new FrameBodyDecoder(codec))
                .addLast("connection", connection);
        return connection;
    }

    /**
     * As {@link #install(Channel, TransportConfig, FrameCodec, ConnectionHandler)}, and runs {@code onPeerRejected}
     * (on the event loop, at most once) when this connection closes because the peer sent a frame we cannot accept:
     * the server counts these for its operators.
     */
    public static ChannelConnection install(Channel channel, TransportConfig config, FrameCodec codec,
                                            ConnectionHandler handler, Runnable onPeerRejected) {
        ChannelConnection connection = install(channel, config, codec, handler);
        connection.onPeerRejected = Objects.requireNonNull(onPeerRejected, "onPeerRejected");
        return connection;
    }

    /**
     * Completes after {@link ConnectionHandler#onOpen} returned, or fails if it threw. Never completes for a
     * channel that never became active: its connect failed, and the connect's own future says why.
     */
    public CompletableFuture<Connection> opened() {
        return opened;
    }

    // ---- Connection ------------------------------------------------------------------------------------------

    @Override
    public long id() {
        return id;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public CompletableFuture<Response> request(Request request) {
        return request(request, config.requestTimeoutMs());
    }

    @Override
    public CompletableFuture<Response> request(Request request, long timeoutMs) {
        Objects.requireNonNull(request, "request");
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("timeoutMs must be > 0, was " + timeoutMs);
        }
        if (!open) {
            return CompletableFuture.failedFuture(closedException("is closed"));
        }
        if (!pending.tryAcquireSlot()) {
            return CompletableFuture.failedFuture(
                    new TooManyPendingRequestsException(toString(), config.pendingRequestsMax()));
        }
        if (!channel.isWritable()) {
            pending.releaseSlot();
            return CompletableFuture.failedFuture(new WriteBufferFullException(
                    toString(), unsentBytes(), config.writeBufferHighWaterMarkBytes()));
        }
        int correlationId = pending.nextCorrelationId();
        ByteBuf bytes;
        try {
            bytes = Frames.encode(channel.alloc(), codec, Frame.request(correlationId, request));
        } catch (RuntimeException e) { // FrameTooLargeException: the request does not fit frameBytesMax
            pending.releaseSlot();
            return CompletableFuture.failedFuture(e);
        }
        PendingRequests.Entry entry = pending.add(correlationId, request.apiKey(), timeoutMs);
        if (entry == null) {
            bytes.release();
            pending.releaseSlot();
            throw new IllegalStateException("Correlation id " + correlationId + " wrapped around onto a request"
                    + " still pending on " + this);
        }
        if (!open) { // step 1 of the race in the class comment: the drain may have missed us
            bytes.release();
            pending.fail(entry, closedException("closed before the request was sent"));
            return entry.future;
        }
        pending.scheduleTimeout(entry, channel.eventLoop());
        channel.writeAndFlush(bytes).addListener(written -> {
            if (!written.isSuccess()) {
                pending.fail(entry, closedException("could not send " + entry.apiKey + " request "
                        + correlationId + ": " + written.cause()));
            }
        });
        return entry.future;
    }

    @Override
    public void respond(int correlationId, Response response) {
        Objects.requireNonNull(response, "response");
        Header request = awaiting.claim(correlationId);
        if (request == null) {
            if (!open) {
                log.debug("{}: dropping {} response {}: the connection is closed", this, response.apiKey(),
                        correlationId);
                return;
            }
            throw new IllegalStateException("No request with correlation id " + correlationId
                    + " awaits a response on " + this + " (answered already, or never received)");
        }
        if (request.apiKey() != response.apiKey()) {
            awaiting.unclaim(request);
            throw new IllegalArgumentException("Request " + correlationId + " on " + this + " is a "
                    + request.apiKey() + ", not answerable with a " + response.apiKey() + " response");
        }
        if (awaiting.release()) {
            onEventLoop(this::updateReading); // below the limit again: we may read the peer again
        }
        writeResponse(request, response);
    }

    @Override
    public CompletableFuture<Void> close() {
        onEventLoop(() -> beginClose(Optional.empty()));
        return closeFuture;
    }

    @Override
    public CompletableFuture<Void> closeFuture() {
        return closeFuture;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isWritable() {
        return channel.isWritable();
    }

    @Override
    public int pendingRequests() {
        return pending.count();
    }

    @Override
    public long unsentBytes() {
        ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }

    /** Whether we are reading from the peer (false while back-pressure or a close has paused reading). */
    public boolean isReading() {
        return channel.config().isAutoRead();
    }

    /** Requests the peer sent that we have not answered yet. */
    public int awaitingResponses() {
        return awaiting.count();
    }

    @Override
    public String toString() {
        return "connection#" + id + "(" + remoteAddress + ")";
    }

    // ---- Pipeline events (event loop) -------------------------------------------------------------------------

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        remoteAddress = channel.remoteAddress();
        active = true;
        try {
            handler.onOpen(this);
            opened.complete(this);
        } catch (RuntimeException e) {
            log.error("{}: onOpen failed; closing the connection", this, e);
            closeCause = e;
            opened.completeExceptionally(closedException("closed: onOpen failed: " + e));
            beginClose(Optional.empty());
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        // One case per inbound event; the decoders emit nothing else.
        if (msg instanceof InboundViolation violation) { // bad input: answer where due, then close
            rejectPeer(violation);
        } else if (msg instanceof Frame frame && frame.header().kind() == FrameKind.REQUEST) {
            onRequestFrame(frame);
        } else if (msg instanceof Frame frame) { // a RESPONSE
            pending.complete(frame);
        } else {
            throw new IllegalStateException("Unexpected pipeline message " + msg.getClass() + " on " + this);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        updateReading();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (closeCause == null) {
            closeCause = cause;
        }
        if (cause instanceof IOException) { // the peer reset or the network failed: routine for a transport
            log.debug("{}: I/O error, closing: {}", this, cause.toString());
        } else {
            log.warn("{}: unexpected error, closing", this, cause);
        }
        open = false;
        channel.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        open = false; // step 2 of the race in the class comment: clear, then drain
        pending.failAll(entry -> closedException("closed with the " + entry.apiKey + " request "
                + entry.correlationId + " pending"));
        awaiting.clear();
        if (active) {
            try {
                handler.onClose(this, Optional.ofNullable(closeCause));
            } catch (RuntimeException e) {
                log.error("{}: onClose failed", this, e);
            }
        }
        closeFuture.complete(null);
        ctx.fireChannelInactive();
    }

    // ---- Helpers ----------------------------------------------------------------------------------------------

    private void onRequestFrame(Frame frame) {
        if (!open) {
            return; // closing: nobody would see the answer
        }
        Header header = frame.header();
        int correlationId = header.correlationId();
        if (!awaiting.add(header)) {
            rejectPeer(new InboundViolation("request " + correlationId + " reuses the correlation id of a "
                    + "request we have not answered yet", Optional.empty(), null));
            return;
        }
        try {
            handler.onRequest(this, correlationId, (Request) frame.message());
        } catch (RuntimeException e) {
            log.error("{}: handler failed on {} request {}; answering UNKNOWN", this, header.apiKey(),
                    correlationId, e);
            if (awaiting.claim(correlationId) != null) {
                awaiting.release();
                writeResponse(header, WireErrors.handlerFailed(header.apiKey()));
            }
        }
        updateReading();
    }

    private void rejectPeer(InboundViolation violation) {
        if (!open) {
            return; // already closing; the first reason was logged
        }
        log.warn("{}: closing the connection: {}{}", this, violation.reason(),
                violation.reply().isPresent() ? " (answered with an error first)" : "");
        closeCause = new InvalidFrameException(violation.reason(), violation.cause());
        onPeerRejected.run();
        beginClose(violation.reply());
    }

    /**
     * Stops reading, lets everything queued (and {@code lastWords}) reach the socket, then closes; forced after
     * {@code closeTimeoutMs} if the peer does not take our bytes.
     */
    private void beginClose(Optional<ByteBuffer> lastWords) {
        if (closing || !channel.isOpen()) {
            return;
        }
        closing = true;
        open = false;
        channel.config().setAutoRead(false);
        ByteBuf marker = lastWords.map(Unpooled::wrappedBuffer).orElse(Unpooled.EMPTY_BUFFER);
        channel.writeAndFlush(marker).addListener(flushed -> channel.close());
        Future<?> force = channel.eventLoop().schedule(() -> {
            if (channel.isOpen()) {
                log.warn("{}: the peer did not take {} unsent bytes within closeTimeoutMs {}; closing anyway",
                        this, unsentBytes(), config.closeTimeoutMs());
                channel.close();
            }
        }, config.closeTimeoutMs(), TimeUnit.MILLISECONDS);
        closeFuture.whenComplete((ignored, e) -> force.cancel(false));
    }

    /**
     * Reads from the peer only while we can write our answers and it has not too many awaiting them. Resuming also
     * re-runs the frame decoder, as a separate task: frames that arrived in the read that paused us are still in
     * its buffer, and the peer may send nothing more until it has our answers to them.
     */
    private void updateReading() {
        boolean read = open && channel.isWritable() && !awaiting.full();
        if (channel.config().isAutoRead() == read) {
            return;
        }
        log.debug("{}: {} reading (writable={}, awaiting={})", this, read ? "resuming" : "pausing",
                channel.isWritable(), awaiting.count());
        channel.config().setAutoRead(read);
        if (read) {
            onEventLoopLater(this::decodeBuffered);
        }
    }

    private void decodeBuffered() {
        if (channel.isActive() && channel.config().isAutoRead()) {
            channel.pipeline().fireChannelRead(Unpooled.EMPTY_BUFFER);
            channel.pipeline().fireChannelReadComplete();
        }
    }

    private void writeResponse(Header request, Response response) {
        int correlationId = request.correlationId();
        ByteBuf bytes;
        try {
            bytes = Frames.encode(channel.alloc(), codec, responseFrame(request, response));
        } catch (RuntimeException e) { // FrameTooLargeException
            log.error("{}: cannot send the {} response {}; answering UNKNOWN: {}", this, response.apiKey(),
                    correlationId, e.toString());
            bytes = Frames.encode(channel.alloc(), codec,
                    responseFrame(request, WireErrors.responseTooLarge(request.apiKey())));
        }
        channel.writeAndFlush(bytes).addListener(written -> {
            if (!written.isSuccess()) { // the connection closed under us; the peer will never see it
                log.debug("{}: could not send the {} response {}: {}", this, response.apiKey(), correlationId,
                        written.cause().toString());
            }
        });
    }

    /** Responses repeat the request's key, version and correlation id (DESIGN §3). */
    private static Frame responseFrame(Header request, Response response) {
        return new Frame(new Header(FrameKind.RESPONSE, request.apiKey(), request.apiVersion(),
                request.correlationId()), response);
    }

    private ConnectionClosedException closedException(String what) {
        return new ConnectionClosedException(this + " " + what);
    }

    private void onEventLoop(Runnable task) {
        if (channel.eventLoop().inEventLoop()) {
            task.run();
        } else {
            onEventLoopLater(task);
        }
    }

    private void onEventLoopLater(Runnable task) {
        try {
            channel.eventLoop().execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("{}: event loop is shut down; dropping a task", this);
        }
    }
}
