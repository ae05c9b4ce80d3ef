package shepherd.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;

/**
 * An in-memory ZooKeeper ensemble and its clients, driven entirely by a {@link Scheduler} and a seeded
 * {@link Random}, so that coordinator bugs that need an unlucky interleaving (a reply lost with its write applied, a
 * process that wakes from a pause still believing it leads, a watch that fires between two reads) can be produced on
 * demand and replayed exactly.
 *
 * <p>The model keeps what a coordinator's correctness depends on: a single linearizable tree with versions and
 * zxids; per-client FIFO order of requests, replies and watch events; one-shot watches owned by a session; sessions
 * that the server expires on its own clock while the client may not know yet; ephemerals that vanish in one
 * transaction with their session. It leaves out what does not change the outcome of a protocol: ACLs, quotas,
 * sequential nodes, several servers behind one address.
 *
 * <p>Deliberate simplifications, each the conservative reading for a coordinator: a lost TCP stream loses a suffix
 * of the requests in flight (never one in the middle); a client reports {@link SimZkSessionEvent#DISCONNECTED} only
 * after it had reported {@link SimZkSessionEvent#SYNC_CONNECTED}; the end of a session is always a commit, even
 * without ephemerals, so checkers see it.
 *
 * <p>This class and {@link Client} are the API; the parts behind them are package-private. On the server side:
 * the tree and its commit log ({@link SimZkDataTree}, changed through a {@link SimZkTxn}), the watches
 * ({@link SimZkWatches}), the sessions and their expiry ({@link SimZkSessions}), and the server's end of each
 * connection ({@link SimZkServer}). On the client side: each client's process ({@link SimZkClientProcess}) and its
 * link ({@link SimZkLink}). Every delay and every loss is drawn by one {@link SimZkWire} from the seeded random, in
 * the order things happen.
 */
public final class SimZooKeeper {
    private final Scheduler scheduler;
    private final SimZkWire wire;
    private final SimZkDataTree tree;
    private final SimZkSessions sessions;
    private final SimZkServer server;
    private final Admin admin = new Admin();

    /** One-way network delays of 1..5 ms. */
    public SimZooKeeper(Scheduler scheduler, Random random) {
        this(scheduler, random, 1, 5);
    }

    /** Each one-way trip (client to server, server to client) takes a delay drawn uniformly from the range. */
    public SimZooKeeper(Scheduler scheduler, Random random, long delayMinMs, long delayMaxMs) {
        if (delayMinMs < 0 || delayMaxMs < delayMinMs) {
            throw new IllegalArgumentException("bad delay range [" + delayMinMs + ", " + delayMaxMs + "] ms");
        }
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.wire = new SimZkWire(Objects.requireNonNull(random, "random"), delayMinMs, delayMaxMs);
        SimZkWatches watches = new SimZkWatches();
        this.tree = new SimZkDataTree(scheduler, watches);
        this.sessions = new SimZkSessions(scheduler, tree, watches);
        this.server = new SimZkServer(scheduler, tree, watches, sessions);
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    /**
     * Opens a session. The server creates it at once (so {@link Client#sessionId()} is known), the client hears
     * {@link SimZkSessionEvent#SYNC_CONNECTED} one delay later. Requests may be issued at once; their replies
     * come after that event.
     */
    public Client connect(String name, long sessionTimeoutMs, SimZkListener listener) {
        if (sessionTimeoutMs <= 0) {
            throw new IllegalArgumentException("session timeout must be positive: " + sessionTimeoutMs);
        }
        SimZkClientProcess process = new SimZkClientProcess(name, sessions.nextId(), sessionTimeoutMs,
                listener == null ? new SimZkListener() { } : listener, scheduler, wire, server);
        server.accept(process);
        return new Client(process);
    }

    /**
     * Expires a session now, as a test harness can force. Its ephemerals go in one commit; a connected client learns
     * {@link SimZkSessionEvent#EXPIRED} one delivery delay later. False when the session was not alive.
     */
    public boolean expire(long sessionId) {
        if (!sessions.alive(sessionId)) {
            return false;
        }
        sessions.end(sessions.get(sessionId), false);
        return true;
    }

    // ---------------------------------------------------------------- inspection (server-side truth, no latency)

    public Optional<SimZkNode> node(String path) {
        SimZkDataNode node = tree.get(SimZkPaths.validate(path));
        return node == null ? Optional.empty() : Optional.of(node.snapshot());
    }

    /** Sorted child names; empty when the node has none or does not exist. */
    public List<String> children(String path) {
        SimZkDataNode node = tree.get(SimZkPaths.validate(path));
        return node == null ? List.of() : List.copyOf(node.children);
    }

    public boolean sessionAlive(long sessionId) {
        return sessions.alive(sessionId);
    }

    /** The zxid of the latest commit; 0 before any. */
    public long lastZxid() {
        return tree.lastZxid();
    }

    /** Called synchronously for every commit, in zxid order, before any watch it triggers is delivered. */
    public void onCommit(Consumer<SimZkCommit> listener) {
        tree.onCommit(Objects.requireNonNull(listener, "listener"));
    }

    public Admin admin() {
        return admin;
    }

    /**
     * Synchronous writes outside any session, for setting up a test or injecting an outside actor's change. They
     * commit (session id 0) and fire watches exactly like a client write. Failures throw, since a setup step that
     * fails is a broken test.
     */
    public final class Admin {
        private Admin() {
        }

        /** Creates a persistent node, and any missing persistent parents (with null data), in one commit. */
        public SimZkStat create(String path, Object data) {
            SimZkPaths.validate(path);
            if (tree.contains(path)) {
                throw new IllegalStateException("NODE_EXISTS " + path);
            }
            List<String> missing = new ArrayList<>();
            for (String p = path; !tree.contains(p); p = SimZkPaths.parentOf(p)) {
                missing.add(0, p);
            }
            SimZkTxn txn = tree.begin(0);
            for (String p : missing) {
                SimZkCode code = txn.create(p, p.equals(path) ? data : null, 0);
                if (code != SimZkCode.OK) {
                    txn.rollback();
                    throw new IllegalStateException(code + " " + p);
                }
            }
            txn.commit(false);
            return tree.get(path).stat();
        }

        public SimZkStat setData(String path, Object data) {
            SimZkPaths.validate(path);
            SimZkTxn txn = tree.begin(0);
            expectOk(txn, txn.setData(path, data, -1), path);
            return tree.get(path).stat();
        }

        public void delete(String path) {
            SimZkPaths.validate(path);
            if (path.equals("/")) {
                throw new IllegalArgumentException("cannot delete the root");
            }
            SimZkTxn txn = tree.begin(0);
            expectOk(txn, txn.delete(path, -1), path);
        }

        private void expectOk(SimZkTxn txn, SimZkCode code, String path) {
            if (code != SimZkCode.OK) {
                txn.rollback();
                throw new IllegalStateException(code + " " + path);
            }
            txn.commit(false);
        }
    }

    // ---------------------------------------------------------------- client

    /**
     * One client process and its connection. Every reaction of the client (callbacks, listener calls, noticing a
     * dead link, its own expiry timer) runs as the process; while {@link #pause() paused} they queue up, which is
     * what makes a resumed process act on a stale view of the world.
     */
    public static final class Client {
        /** The client's own view of its session. */
        public enum State {
            CONNECTING,
            CONNECTED,
            DISCONNECTED,
            EXPIRED,
            CLOSED
        }

        private final SimZkClientProcess process;

        private Client(SimZkClientProcess process) {
            this.process = process;
        }

        public String name() {
            return process.name();
        }

        public long sessionId() {
            return process.sessionId();
        }

        public long sessionTimeoutMs() {
            return process.sessionTimeoutMs();
        }

        public State state() {
            return process.state();
        }

        public boolean paused() {
            return process.paused();
        }

        public boolean linkUp() {
            return process.linkUp();
        }

        @Override
        public String toString() {
            return name() + "(0x" + Long.toHexString(sessionId()) + ", " + state() + (paused() ? ", paused" : "")
                    + (linkUp() ? "" : ", link down") + ")";
        }

        // ------------------------------------------------------------ operations

        public void create(String path, Object data, boolean ephemeral, Consumer<SimZkResult> cb) {
            process.submit(SimZkRequest.create(path, data, ephemeral, cb));
        }

        public void setData(String path, Object data, int expectedVersion, Consumer<SimZkResult> cb) {
            process.submit(SimZkRequest.setData(path, data, expectedVersion, cb));
        }

        public void delete(String path, int expectedVersion, Consumer<SimZkResult> cb) {
            process.submit(SimZkRequest.delete(path, expectedVersion, cb));
        }

        public void getData(String path, boolean watch, Consumer<SimZkResult> cb) {
            process.submit(SimZkRequest.getData(path, watch, cb));
        }

        public void getChildren(String path, boolean watch, Consumer<SimZkResult> cb) {
            process.submit(SimZkRequest.getChildren(path, watch, cb));
        }

        /** Answers NO_NODE with a null stat when missing; a watch set on a missing node fires on its creation. */
        public void exists(String path, boolean watch, Consumer<SimZkResult> cb) {
            process.submit(SimZkRequest.exists(path, watch, cb));
        }

        public void multi(List<SimZkOp> ops, Consumer<SimZkResult> cb) {
            process.submit(SimZkRequest.multi(ops, cb));
        }

        /**
         * A multi of reads only, as ZooKeeper 3.6+ has it: the server answers every read at one point of the tree's
         * history, each on its own ({@link SimZkResult#results}: a missing node fails only its own read), and sets
         * no watch. The request as a whole is OK unless the connection or the session is lost.
         */
        public void multiRead(List<SimZkRead> reads, Consumer<SimZkResult> cb) {
            process.submit(SimZkRequest.multiRead(reads, cb));
        }

        /** A round trip that changes nothing: proof that the session was alive and heard at some point after now. */
        public void sync(Consumer<SimZkResult> cb) {
            process.submit(SimZkRequest.sync(cb));
        }

        // ------------------------------------------------------------ faults

        /**
         * Cuts the link. Requests on the wire reach the server or not at random (a lost one takes the later ones
         * with it); replies and watch events on the wire are lost. The client notices one delay later: in-flight
         * requests then complete with CONNECTION_LOSS, then {@link SimZkSessionEvent#DISCONNECTED}.
         */
        public void disconnect() {
            process.disconnect();
        }

        /**
         * Heals the link. The client then reconnects: the server answers SYNC_CONNECTED, or EXPIRED if it has
         * expired the session in the meantime.
         */
        public void reconnect() {
            process.reconnect();
        }

        /** Freezes the process (a GC pause): the server stops hearing it, and nothing reaches it until resumed. */
        public void pause() {
            process.pause();
        }

        /**
         * Thaws the process: what arrived meanwhile is delivered in order. If the server expired the session
         * meanwhile, the process finds out only now, first as DISCONNECTED, then EXPIRED a round trip later.
         */
        public void resume() {
            process.resume();
        }

        /**
         * Ends the session at once (its ephemerals go in one commit). Requests not yet answered complete with
         * SESSION_EXPIRED and are not applied; no session event follows.
         */
        public void close() {
            process.close();
        }
    }
}
