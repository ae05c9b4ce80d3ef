package shepherd.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.protocol.FrameCodec;
import shepherd.transport.internal.ChannelConnection;
import shepherd.transport.internal.EventLoops;

/**
 * Opens connections to servers. One client owns one set of event-loop threads ({@link TransportConfig#ioThreads()})
 * shared by every connection it opens, however many: open one client per process (or per component) and connect
 * through it, rather than one client per connection. {@link #close()} closes its connections and stops the
 * threads.
 */
public final class TransportClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TransportClient.class);

    private final TransportConfig config;
    private final FrameCodec codec;
    private final EventLoopGroup group;
    private final ScheduledExecutorService loop;
    private final Set<ChannelConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closing = new AtomicBoolean();

    private TransportClient(TransportConfig config) {
        this.config = config;
        this.codec = new FrameCodec(config.frameBytesMax());
        this.group = EventLoops.newGroup("shepherd-client-io", config);
        this.loop = group.next();
    }

    public static TransportClient create(TransportConfig config) {
        return new TransportClient(Objects.requireNonNull(config, "config"));
    }

    /**
     * Connects to {@code host:port}; the name is resolved on an I/O thread (a blocking lookup for names that are
     * not IP literals: pass an {@link InetSocketAddress} resolved elsewhere to avoid that).
     *
     * @see #connect(InetSocketAddress, ConnectionHandler)
     */
    public CompletableFuture<Connection> connect(String host, int port, ConnectionHandler handler) {
        return connect(InetSocketAddress.createUnresolved(host, port), handler);
    }

    /**
     * Connects to {@code address}, giving the connection to {@code handler}.
     *
     * @return completes with the open connection after {@link ConnectionHandler#onOpen} ran, or exceptionally
     *     with {@link ConnectFailedException} (refused, unreachable, not connected within
     *     {@link TransportConfig#connectTimeoutMs()}, this client is closed, or {@code onOpen} threw)
     */
    public CompletableFuture<Connection> connect(InetSocketAddress address, ConnectionHandler handler) {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(handler, "handler");
        String host = address.getHostString();
        int port = address.getPort();
        CompletableFuture<Connection> result = new CompletableFuture<>();
        if (closing.get()) {
            result.completeExceptionally(new ConnectFailedException(host, port, "the client is closed", null));
            return result;
        }
        Bootstrap bootstrap = EventLoops.options(new Bootstrap(), config)
                .group(group)
                .channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        ChannelConnection connection = ChannelConnection.install(channel, config, codec, handler);
                        connections.add(connection);
                        connection.closeFuture().whenComplete((ignored, e) -> connections.remove(connection));
                        connection.opened().whenComplete((open, notOpen) -> {
                            if (notOpen == null) {
                                result.complete(open);
                            } else {
                                result.completeExceptionally(
                                        new ConnectFailedException(host, port, notOpen.getMessage(), notOpen));
                            }
                        });
                        if (closing.get()) { // see TransportServer.accept: close() may have swept already
                            connection.opened().thenRun(connection::close);
                        }
                    }
                });
        ChannelFuture connected;
        try {
            connected = bootstrap.connect(address);
        } catch (RuntimeException e) { // the event loops are shut down
            result.completeExceptionally(new ConnectFailedException(host, port, e.toString(), e));
            return result;
        }
        connected.addListener(done -> {
            if (!done.isSuccess()) {
                Throwable cause = done.cause();
                result.completeExceptionally(new ConnectFailedException(host, port,
                        cause == null ? "cancelled" : cause.toString(), cause));
            }
        });
        return result;
    }

    /**
     * An event loop of this client, for work that belongs with its connections' I/O: a task submitted from the loop
     * itself runs after the I/O at hand without waking anything, and a connection's callbacks, if it was opened on
     * this loop, arrive on its thread. With {@link TransportConfig#ioThreads()} 1 (a client of its own, as a consumer
     * has) every connection is on it. Never block on it; {@link #close()} stops it, after which it refuses tasks
     * ({@link java.util.concurrent.RejectedExecutionException}).
     */
    public ScheduledExecutorService loop() {
        return loop;
    }

    /** A snapshot of the open connections. */
    public List<Connection> connections() {
        return List.copyOf(connections);
    }

    /**
     * Closes every connection gracefully (as {@link Connection#close()}) and stops the event loops, waiting at
     * most about twice {@link TransportConfig#closeTimeoutMs()}. Idempotent.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        EventLoops.closeAllAndShutdown(connections, group, config, "Client");
    }
}
