package shepherd.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.protocol.FrameCodec;
import shepherd.transport.internal.ChannelConnection;
import shepherd.transport.internal.EventLoops;

/**
 * Accepts connections on one address and hands each to the same {@link ConnectionHandler}. The server owns its
 * event-loop threads ({@link TransportConfig#ioThreads()}, which accept and serve alike): {@link #close()} stops
 * them.
 *
 * <pre>{@code
 * try (TransportServer server = TransportServer.bind("127.0.0.1", 0, TransportConfig.defaults(), handler)) {
 *     int port = server.port();
 *     ...
 * }
 * }</pre>
 */
public final class TransportServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TransportServer.class);

    private final TransportConfig config;
    private final FrameCodec codec;
    private final ConnectionHandler handler;
    private final EventLoopGroup group;
    private final Set<ChannelConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AtomicLong malformedFrames = new AtomicLong();
    private final Channel serverChannel;
    private final InetSocketAddress localAddress;

    private TransportServer(String host, int port, TransportConfig config, ConnectionHandler handler)
            throws IOException {
        this.config = config;
        this.codec = new FrameCodec(config.frameBytesMax());
        this.handler = handler;
        this.group = EventLoops.newGroup("shepherd-server-io", config);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        accept(channel);
                    }
                });
        ChannelFuture bound = EventLoops.childOptions(bootstrap, config).bind(host, port);
        if (!bound.awaitUninterruptibly(config.connectTimeoutMs(), TimeUnit.MILLISECONDS) || !bound.isSuccess()) {
            bound.channel().close();
            EventLoops.shutdown(group, config);
            Throwable cause = bound.cause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException("Cannot bind " + host + ":" + port
                    + (cause == null ? ": timed out after " + config.connectTimeoutMs() + " ms" : ""), cause);
        }
        this.serverChannel = bound.channel();
        this.localAddress = (InetSocketAddress) serverChannel.localAddress();
        log.info("Listening on {}", localAddress);
    }

    /**
     * Binds {@code host:port} and starts accepting. Port 0 picks a free port: read it with {@link #port()}.
     *
     * @throws IOException if the address cannot be bound (in use, not local, ...) within the connect timeout
     */
    public static TransportServer bind(String host, int port, TransportConfig config, ConnectionHandler handler)
            throws IOException {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(handler, "handler");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be in 0..65535, was " + port);
        }
        return new TransportServer(host, port, config, handler);
    }

    /** Runs on the new connection's event loop, before it is active. */
    private void accept(SocketChannel channel) {
        ChannelConnection connection = ChannelConnection.install(channel, config, codec, handler,
                malformedFrames::incrementAndGet);
        connections.add(connection);
        connection.closeFuture().whenComplete((ignored, e) -> connections.remove(connection));
        // 1. close() sets closing, then sweeps `connections`; 2. we add, then read closing. So a connection
        // accepted while the server closes is either swept or closes itself, once it is active.
        if (closing.get()) {
            channel.eventLoop().execute(connection::close);
        }
    }

    /** The bound port (the real one when bound to port 0). */
    public int port() {
        return localAddress.getPort();
    }

    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /**
     * How many connections this server has closed because the peer sent a frame it cannot accept (malformed,
     * oversized, a negative size, or a request reusing a pending correlation id), since it was bound. Monotonic; a
     * plain number so that the broker can export it without this module knowing any metrics library.
     */
    public long malformedFrames() {
        return malformedFrames.get();
    }

    /** A snapshot of the open connections. */
    public List<Connection> connections() {
        return List.copyOf(connections);
    }

    /**
     * Stops accepting, closes every connection gracefully (queued bytes flushed, pending requests failed with
     * {@link ConnectionClosedException}, {@link ConnectionHandler#onClose} run) and stops the event loops. Waits
     * for all of it, at most about twice {@link TransportConfig#closeTimeoutMs()}. Idempotent.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        serverChannel.close().awaitUninterruptibly(config.closeTimeoutMs(), TimeUnit.MILLISECONDS);
        int closed = EventLoops.closeAllAndShutdown(connections, group, config, "Server on " + localAddress);
        log.info("Stopped listening on {}; closed {} connections", localAddress, closed);
    }
}
