package shepherd.transport.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.transport.TransportConfig;

/** Creating and stopping event-loop groups, and the socket options every connection gets. */
public final class EventLoops {
    private static final Logger log = LoggerFactory.getLogger(EventLoops.class);

    private EventLoops() {}

    /**
     * Closes every connection gracefully, waits for all of them (at most {@code closeTimeoutMs} + 1 s), then stops
     * {@code group}; what did not finish in time is logged against {@code owner}. Returns how many were closed.
     */
    public static int closeAllAndShutdown(Collection<ChannelConnection> connections, EventLoopGroup group,
                                          TransportConfig config, String owner) {
        CompletableFuture<?>[] closes = connections.stream().map(ChannelConnection::close)
                .toArray(CompletableFuture<?>[]::new);
        long timeoutMs = config.closeTimeoutMs() + 1_000;
        try {
            CompletableFuture.allOf(closes).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("{}: not every connection closed within {} ms: {}", owner, timeoutMs, e.toString());
        }
        if (!shutdown(group, config)) {
            log.warn("{}: event loops did not stop within {} ms", owner, config.closeTimeoutMs());
        }
        return closes.length;
    }

    /**
     * A group of {@code config.ioThreads()} NIO event loops (Netty 4.2: {@link MultiThreadIoEventLoopGroup} with
     * {@link NioIoHandler}; {@code NioEventLoopGroup} is deprecated). Daemon threads named {@code name-N}: a
     * transport left open must not keep the JVM alive.
     */
    public static EventLoopGroup newGroup(String name, TransportConfig config) {
        return new MultiThreadIoEventLoopGroup(config.ioThreads(), new DefaultThreadFactory(name, true),
                NioIoHandler.newFactory());
    }

    /** Stops {@code group} at once (no quiet period), waiting at most {@code closeTimeoutMs}. */
    public static boolean shutdown(EventLoopGroup group, TransportConfig config) {
        Future<?> done = group.shutdownGracefully(0, config.closeTimeoutMs(), TimeUnit.MILLISECONDS);
        return done.awaitUninterruptibly(config.closeTimeoutMs() + 1_000, TimeUnit.MILLISECONDS);
    }

    /** The options of an accepted connection's socket. */
    public static ServerBootstrap childOptions(ServerBootstrap bootstrap, TransportConfig config) {
        return bootstrap
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark(config));
    }

    /** The options of an outgoing connection's socket. */
    public static Bootstrap options(Bootstrap bootstrap, TransportConfig config) {
        return bootstrap
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark(config))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, Math.toIntExact(config.connectTimeoutMs()));
    }

    private static WriteBufferWaterMark waterMark(TransportConfig config) {
        return new WriteBufferWaterMark(config.writeBufferLowWaterMarkBytes(), config.writeBufferHighWaterMarkBytes());
    }
}
