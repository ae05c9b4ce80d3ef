package shepherd.zookeeper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.security.sasl.SaslException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.server.ServerCnxn;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real ZooKeeper ensemble of N {@link QuorumPeer}s inside this JVM, on loopback, for tests that need what one
 * standalone server cannot show: a leader election among servers, a client failing over to another member with its
 * session intact, and a quorum that survives the loss of one member.
 *
 * <p>Each member is ZooKeeper's own {@link QuorumPeerMain} run from a {@link QuorumPeerConfig} built from properties
 * (tick 200 ms, initLimit 10, syncLimit 5, its own data directory and loopback ports), so the protocol, the sessions
 * and their expiry are ZooKeeper's. A member keeps its ports and its data across {@link #stop}/{@link #restart}, as a
 * restarted server would. Readiness is checked the way a client sees it: a session opened on that member alone
 * creates a node, which needs a leader and a quorum.
 *
 * <p>Never for production: all members share one process, so they fail together.
 */
public final class EmbeddedEnsemble implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedEnsemble.class);

    /** How long a start or restart waits until the member serves writes. */
    public static final long START_TIMEOUT_MS = 30_000;
    private static final int TICK_MS = 200;

    private final Path baseDir;
    private final int[] clientPorts;
    private final Properties[] configs;
    private final Member[] members;

    private EmbeddedEnsemble(Path baseDir, int size) {
        this.baseDir = baseDir;
        this.clientPorts = new int[size];
        this.configs = new Properties[size];
        this.members = new Member[size];
        int[][] quorumPorts = new int[size][2];
        for (int i = 0; i < size; i++) {
            clientPorts[i] = freeLoopbackPort();
            quorumPorts[i][0] = freeLoopbackPort();
            quorumPorts[i][1] = freeLoopbackPort();
        }
        for (int i = 0; i < size; i++) {
            Path dataDir = baseDir.resolve("member-" + (i + 1));
            try {
                Files.createDirectories(dataDir);
                Files.writeString(dataDir.resolve("myid"), Integer.toString(i + 1), StandardCharsets.US_ASCII);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot prepare " + dataDir, e);
            }
            Properties p = new Properties();
            p.setProperty("tickTime", Integer.toString(TICK_MS));
            p.setProperty("initLimit", "10");
            p.setProperty("syncLimit", "5");
            p.setProperty("dataDir", dataDir.toString());
            p.setProperty("clientPort", Integer.toString(clientPorts[i]));
            p.setProperty("clientPortAddress", "127.0.0.1");
            p.setProperty("admin.enableServer", "false");
            p.setProperty("jmx.log4j.disable", "true");
            for (int j = 0; j < size; j++) {
                p.setProperty("server." + (j + 1), "127.0.0.1:" + quorumPorts[j][0] + ":" + quorumPorts[j][1]);
            }
            configs[i] = p;
        }
    }

    /** Starts {@code size} members in a fresh temporary directory and waits until every one of them serves writes. */
    public static EmbeddedEnsemble start(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("an ensemble needs at least one member, not " + size);
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("shepherd-zk-ensemble-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for the ensemble", e);
        }
        EmbeddedEnsemble ensemble = new EmbeddedEnsemble(dir, size);
        try {
            for (int i = 0; i < size; i++) {
                ensemble.launch(i);
            }
            for (int i = 0; i < size; i++) {
                ensemble.awaitServing(i);
            }
        } catch (RuntimeException e) {
            ensemble.close();
            throw e;
        }
        LOG.info("Embedded ZooKeeper ensemble serving {} from {}", ensemble.connectString(), dir);
        return ensemble;
    }

    /** Every member, {@code 127.0.0.1:<port>,...}: what clients use to fail over between them. */
    public String connectString() {
        return IntStream.range(0, clientPorts.length).mapToObj(this::connectString)
                .collect(Collectors.joining(","));
    }

    /** Member {@code i} alone (0-based). */
    public String connectString(int i) {
        return "127.0.0.1:" + clientPorts[i];
    }

    public int size() {
        return members.length;
    }

    /**
     * The member holding a client connection of {@code sessionId}, or -1: how a test finds the server a client is
     * attached to without reaching into the client.
     */
    public synchronized int memberServing(long sessionId) {
        for (int i = 0; i < members.length; i++) {
            Member m = members[i];
            QuorumPeer peer = m == null ? null : m.peer;
            ZooKeeperServer server = peer == null ? null : peer.getActiveServer();
            ServerCnxnFactory factory = server == null ? null : server.getServerCnxnFactory();
            if (factory == null) {
                continue;
            }
            for (ServerCnxn cnxn : factory.getConnections()) {
                if (cnxn.getSessionId() == sessionId) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** The member currently leading the ensemble, or -1 while there is none (an election among the members). */
    public synchronized int leader() {
        for (int i = 0; i < members.length; i++) {
            Member m = members[i];
            QuorumPeer peer = m == null ? null : m.peer;
            if (peer != null && peer.getPeerState() == QuorumPeer.ServerState.LEADING) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Expires session {@code sessionId} the way its timeout would: the leader closes it (its ephemeral nodes go in the
     * same transaction) and every member drops its connection, without any client being involved. Unlike a second
     * handle on the session, this does not first take the connection away from the session's own client, so its
     * requests in flight meet the expiry itself.
     */
    public synchronized void expireSession(long sessionId) {
        int leader = leader();
        ZooKeeperServer server = leader < 0 ? null : members[leader].peer.getActiveServer();
        if (server == null) {
            throw new IllegalStateException("no leader to expire session 0x" + Long.toHexString(sessionId) + ": " + this);
        }
        server.expire(sessionId);
    }

    /**
     * Leaves session {@code sessionId} dead behind a live connection: the leader forgets it, while the member holding
     * its connection keeps serving it. That member goes on answering the client's reads and pings, every write comes
     * back {@code SESSIONEXPIRED}, and the client is never told of an expiry. The state a session closed through
     * another member leaves behind when the close overtakes its own connection being set up (seen in this module's
     * tests); this reaches it without the race. Unlike a real close, the session's ephemeral nodes stay.
     */
    public synchronized void forgetSessionAtLeader(long sessionId) {
        int leader = leader();
        ZooKeeperServer server = leader < 0 ? null : members[leader].peer.getActiveServer();
        if (server == null) {
            throw new IllegalStateException("no leader to forget session 0x" + Long.toHexString(sessionId) + ": "
                    + this);
        }
        server.getSessionTracker().removeSession(sessionId);
    }

    /** Whether member {@code i} is running (not {@link #stop stopped}). */
    public synchronized boolean isRunning(int i) {
        return members[i] != null;
    }

    /** Shuts member {@code i} down: its clients lose their connection, the others carry on if they keep a quorum. */
    public synchronized void stop(int i) {
        Member m = members[i];
        if (m == null) {
            return;
        }
        members[i] = null;
        m.close();
        try {
            m.thread.join(START_TIMEOUT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("Embedded ZooKeeper ensemble member {} stopped", i + 1);
    }

    /** Starts member {@code i} again on its ports and data, and waits until it serves writes. */
    public void restart(int i) {
        stop(i);
        synchronized (this) {
            launch(i);
        }
        awaitServing(i);
        LOG.info("Embedded ZooKeeper ensemble member {} serving again", i + 1);
    }

    /** Stops every member and deletes the ensemble's data. */
    @Override
    public void close() {
        for (int i = 0; i < members.length; i++) {
            stop(i);
        }
        try (Stream<Path> paths = Files.walk(baseDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            LOG.warn("could not delete the ensemble's directory {}: {}", baseDir, e.toString());
        }
    }

    // ------------------------------------------------------------------ members

    /** One running member: ZooKeeper's main, its peer once created, and the thread that runs it. */
    private static final class Member extends QuorumPeerMain {
        volatile QuorumPeer peer;
        Thread thread;

        @Override
        protected QuorumPeer getQuorumPeer() throws SaslException {
            QuorumPeer p = super.getQuorumPeer();
            peer = p;
            return p;
        }
    }

    private void launch(int i) {
        QuorumPeerConfig config = new QuorumPeerConfig();
        try {
            config.parseProperties((Properties) configs[i].clone());
        } catch (IOException | QuorumPeerConfig.ConfigException e) {
            throw new IllegalStateException("bad configuration of ensemble member " + (i + 1) + ": " + e, e);
        }
        Member m = new Member();
        m.thread = new Thread(() -> {
            try {
                m.runFromConfig(config);
            } catch (Exception e) {
                LOG.error("ensemble member {} ended with an error", i + 1, e);
            }
        }, "zk-ensemble-member-" + (i + 1));
        m.thread.setDaemon(true);
        members[i] = m;
        m.thread.start();
    }

    /** A session on member {@code i} alone creates (and drops) an ephemeral node: that member serves, with a quorum. */
    private void awaitServing(int i) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            ZooKeeper zk = null;
            try {
                CountDownLatch connected = new CountDownLatch(1);
                zk = new ZooKeeper(connectString(i), 4_000, event -> {
                    if (event.getState() == KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                });
                if (connected.await(2_000, TimeUnit.MILLISECONDS)) {
                    zk.create("/ensemble-probe-", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
                    return;
                }
            } catch (KeeperException | IOException e) {
                last = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for ensemble member " + (i + 1), e);
            } finally {
                if (zk != null) {
                    try {
                        zk.close();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }
        throw new IllegalStateException("ensemble member " + (i + 1) + " at " + connectString(i)
                + " did not serve writes within " + START_TIMEOUT_MS + " ms" + (last == null ? "" : ": " + last), last);
    }

    private static int freeLoopbackPort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port for the ensemble", e);
        }
    }

    /** For diagnostics. */
    @Override
    public String toString() {
        List<String> state = new ArrayList<>();
        for (int i = 0; i < members.length; i++) {
            Member m = members[i];
            QuorumPeer p = m == null ? null : m.peer;
            state.add((i + 1) + "=" + (m == null ? "stopped" : p == null ? "starting" : p.getPeerState()));
        }
        return "EmbeddedEnsemble" + state;
    }
}
