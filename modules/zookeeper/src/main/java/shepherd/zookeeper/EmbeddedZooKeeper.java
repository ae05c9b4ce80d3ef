package shepherd.zookeeper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.Set;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.util.stream.Stream;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone ZooKeeper server inside this JVM, on loopback, for single-machine trials ({@code --zookeeper
 * embedded}), the demo and the tests. It uses ZooKeeper's own embedded-server API, so it is a real server speaking the
 * real protocol with real sessions and real expiry; only its placement in our process is unusual.
 *
 * <p>Never for production: one server is no quorum, and its data lives in a directory this class may delete.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

    /** How long {@link #start} waits for the server to accept connections. */
    public static final long START_TIMEOUT_MS = 30_000;

    private final ZooKeeperServerEmbedded server;
    private final Path baseDir;
    private final boolean deleteOnClose;
    private final String connectString;

    private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, Path baseDir, boolean deleteOnClose,
                              String connectString) {
        this.server = server;
        this.baseDir = baseDir;
        this.deleteOnClose = deleteOnClose;
        this.connectString = connectString;
    }

    /** Starts a server in a fresh temporary directory, deleted again on {@link #close()}. */
    public static EmbeddedZooKeeper startTemporary() {
        try {
            return start(Files.createTempDirectory("shepherd-zk-"), true, 200);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for the embedded ZooKeeper", e);
        }
    }

    /**
     * Starts a server keeping its data in {@code baseDir}.
     *
     * @param tickTimeMs ZooKeeper's tick; sessions may last between 2 and 20 ticks
     */
    public static EmbeddedZooKeeper start(Path baseDir, boolean deleteOnClose, int tickTimeMs) {
        return start(baseDir, deleteOnClose, tickTimeMs, freeLoopbackPort());
    }

    /**
     * Starts a server on a given loopback port: for tests whose client must be launched, with the address, before
     * the server exists (a broker that starts while its ZooKeeper is still down).
     */
    public static EmbeddedZooKeeper start(Path baseDir, boolean deleteOnClose, int tickTimeMs, int port) {
        if (tickTimeMs <= 0) {
            throw new IllegalArgumentException("tickTimeMs must be positive, was " + tickTimeMs);
        }
        Properties config = new Properties();
        config.setProperty("clientPort", Integer.toString(port));
        config.setProperty("clientPortAddress", "127.0.0.1");
        config.setProperty("tickTime", Integer.toString(tickTimeMs));
        config.setProperty("admin.enableServer", "false");
        config.setProperty("4lw.commands.whitelist", "srvr,stat,ruok,mntr");
        try {
            ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder()
                    .baseDir(baseDir)
                    .configuration(config)
                    .exitHandler(ExitHandler.LOG_ONLY)
                    .build();
            server.start(START_TIMEOUT_MS);
            String connectString = "127.0.0.1:" + port;
            LOG.info("Embedded ZooKeeper serving {} from {} (a single in-process server: for trials and tests only)",
                    connectString, baseDir);
            return new EmbeddedZooKeeper(server, baseDir, deleteOnClose, connectString);
        } catch (Exception e) {
            throw new IllegalStateException("embedded ZooKeeper failed to start on 127.0.0.1:" + port
                    + " in " + baseDir + ": " + e, e);
        }
    }

    /** The connect string clients use, {@code 127.0.0.1:<port>}. */
    public String connectString() {
        return connectString;
    }

    /** The directory holding the server's snapshots and transaction log. */
    public Path baseDir() {
        return baseDir;
    }

    /**
     * Ends a client session on the server, as the server's own expiry does: the session's ephemeral nodes are
     * deleted, its connection is closed, and when the client reconnects the server tells it the session has expired
     * ({@code Expired}). For failure drills (the demo, tests): a real server-side expiry without waiting out the
     * session timeout. It goes through the server's JMX connection bean ({@code terminateSession}), the management
     * interface ZooKeeper offers for this, so it needs the session to be connected at the moment.
     *
     * @param sessionId the session to end, e.g. the {@code ephemeralOwner} of one of its nodes
     * @throws IllegalStateException if no connection of this server carries that session
     */
    public void expireSession(long sessionId) {
        String id = "0x" + Long.toHexString(sessionId);
        try {
            ManagementFactory.getPlatformMBeanServer().invoke(connectionOf(sessionId), "terminateSession",
                    new Object[0], new String[0]);
            LOG.info("Embedded ZooKeeper {} ended session {} server-side", connectString, id);
        } catch (JMException e) {
            throw new IllegalStateException("cannot end session " + id + " through JMX: " + e, e);
        }
    }

    /**
     * How many packets (requests and heartbeats) the server has received on the connection that carries a session:
     * what a test or benchmark counts to see how many requests an operation cost.
     *
     * @throws IllegalStateException if no connection of this server carries that session
     */
    public long packetsReceived(long sessionId) {
        try {
            return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(connectionOf(sessionId),
                    "PacketsReceived");
        } catch (JMException e) {
            throw new IllegalStateException("cannot read the packets of session 0x" + Long.toHexString(sessionId)
                    + " through JMX: " + e, e);
        }
    }

    /** The server's JMX bean of the connection carrying {@code sessionId}. */
    private ObjectName connectionOf(long sessionId) throws JMException {
        String id = "0x" + Long.toHexString(sessionId);
        MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
        ObjectName pattern = new ObjectName("org.apache.ZooKeeperService:name0=StandaloneServer_port"
                + connectString.substring(connectString.lastIndexOf(':') + 1) + ",name1=Connections,*");
        Set<ObjectName> connections = mbeans.queryNames(pattern, null);
        for (ObjectName connection : connections) {
            if (id.equals(mbeans.getAttribute(connection, "SessionId"))) {
                return connection;
            }
        }
        throw new IllegalStateException("no connection of the embedded ZooKeeper " + connectString
                + " carries session " + id + " (connections: " + connections.size() + ")");
    }

    @Override
    public void close() {
        server.close();
        if (deleteOnClose) {
            deleteRecursively(baseDir);
        }
    }

    private static int freeLoopbackPort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port for the embedded ZooKeeper", e);
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            LOG.warn("could not delete the embedded ZooKeeper's directory {}: {}", dir, e.toString());
        }
    }
}
