package shepherd.testkit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Predicate;

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
 */
public final class SimZooKeeper {
    private static final long FIRST_SESSION_ID = 0x1_0000_0001L;

    private final Scheduler scheduler;
    private final Random random;
    private final long delayMinMs;
    private final long delayMaxMs;

    private final Map<String, ZNode> nodes = new HashMap<>();
    private final Map<String, LinkedHashMap<Long, Watch>> dataWatches = new HashMap<>();
    private final Map<String, LinkedHashMap<Long, Watch>> childWatches = new HashMap<>();
    private final Map<Long, Session> sessions = new LinkedHashMap<>();
    private final List<Consumer<SimZkCommit>> commitListeners = new ArrayList<>();
    private final Admin admin = new Admin();
    private long lastZxid;
    private long nextSessionId = FIRST_SESSION_ID;

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
        this.random = Objects.requireNonNull(random, "random");
        this.delayMinMs = delayMinMs;
        this.delayMaxMs = delayMaxMs;
        nodes.put("/", new ZNode("/", null, 0, 0));
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
        long id = nextSessionId++;
        Client client = new Client(name, id, sessionTimeoutMs, listener == null ? new SimZkListener() { } : listener);
        Session session = new Session(id, sessionTimeoutMs, client);
        client.session = session;
        sessions.put(id, session);
        session.connOpen = true;
        session.connEpoch = client.epoch;
        session.lastHeardMs = scheduler.nowMs();
        client.sendDown(DownItem.syncConnected(client.epoch));
        return client;
    }

    /**
     * Expires a session now, as a test harness can force. Its ephemerals go in one commit; a connected client learns
     * {@link SimZkSessionEvent#EXPIRED} one delivery delay later. False when the session was not alive.
     */
    public boolean expire(long sessionId) {
        Session session = sessions.get(sessionId);
        if (session == null || !session.alive) {
            return false;
        }
        endSession(session, false);
        return true;
    }

    // ---------------------------------------------------------------- inspection (server-side truth, no latency)

    public Optional<SimZkNode> node(String path) {
        ZNode node = nodes.get(validate(path));
        return node == null ? Optional.empty() : Optional.of(node.snapshot());
    }

    /** Sorted child names; empty when the node has none or does not exist. */
    public List<String> children(String path) {
        ZNode node = nodes.get(validate(path));
        return node == null ? List.of() : List.copyOf(node.children);
    }

    public boolean sessionAlive(long sessionId) {
        Session session = sessions.get(sessionId);
        return session != null && session.alive;
    }

    /** The zxid of the latest commit; 0 before any. */
    public long lastZxid() {
        return lastZxid;
    }

    /** Called synchronously for every commit, in zxid order, before any watch it triggers is delivered. */
    public void onCommit(Consumer<SimZkCommit> listener) {
        commitListeners.add(Objects.requireNonNull(listener, "listener"));
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
            validate(path);
            if (nodes.containsKey(path)) {
                throw new IllegalStateException("NODE_EXISTS " + path);
            }
            List<String> missing = new ArrayList<>();
            for (String p = path; !nodes.containsKey(p); p = parentOf(p)) {
                missing.add(0, p);
            }
            Txn txn = new Txn(0);
            for (String p : missing) {
                SimZkCode code = txn.create(p, p.equals(path) ? data : null, 0);
                if (code != SimZkCode.OK) {
                    txn.rollback();
                    throw new IllegalStateException(code + " " + p);
                }
            }
            txn.commit(false);
            return nodes.get(path).stat();
        }

        public SimZkStat setData(String path, Object data) {
            validate(path);
            Txn txn = new Txn(0);
            expectOk(txn, txn.setData(path, data, -1), path);
            return nodes.get(path).stat();
        }

        public void delete(String path) {
            validate(path);
            if (path.equals("/")) {
                throw new IllegalArgumentException("cannot delete the root");
            }
            Txn txn = new Txn(0);
            expectOk(txn, txn.delete(path, -1), path);
        }

        private void expectOk(Txn txn, SimZkCode code, String path) {
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
    public final class Client {
        /** The client's own view of its session. */
        public enum State {
            CONNECTING,
            CONNECTED,
            DISCONNECTED,
            EXPIRED,
            CLOSED
        }

        private final String name;
        private final long sessionId;
        private final long sessionTimeoutMs;
        private final SimZkListener listener;
        private Session session;

        private State state = State.CONNECTING;
        private boolean linkUp = true;
        private boolean paused;
        private int epoch = 1;
        private final List<Request> outstanding = new ArrayList<>();
        private final Deque<UpItem> uplink = new ArrayDeque<>();
        private final Deque<DownItem> downlink = new ArrayDeque<>();
        private long lastUpDueMs;
        private long lastDownDueMs;
        private final Deque<Inbound> inbox = new ArrayDeque<>();
        private boolean noticePending;
        private long disconnectedSinceMs = -1;
        private int episode;
        private Scheduler.Task selfExpiry;

        private Client(String name, long sessionId, long sessionTimeoutMs, SimZkListener listener) {
            this.name = name;
            this.sessionId = sessionId;
            this.sessionTimeoutMs = sessionTimeoutMs;
            this.listener = listener;
        }

        public String name() {
            return name;
        }

        public long sessionId() {
            return sessionId;
        }

        public long sessionTimeoutMs() {
            return sessionTimeoutMs;
        }

        public State state() {
            return state;
        }

        public boolean paused() {
            return paused;
        }

        public boolean linkUp() {
            return linkUp;
        }

        @Override
        public String toString() {
            return name + "(0x" + Long.toHexString(sessionId) + ", " + state + (paused ? ", paused" : "")
                    + (linkUp ? "" : ", link down") + ")";
        }

        // ------------------------------------------------------------ operations

        public void create(String path, Object data, boolean ephemeral, Consumer<SimZkResult> cb) {
            submit(new Request(Op.CREATE, validate(path), data, ephemeral, -1, false, null, cb));
        }

        public void setData(String path, Object data, int expectedVersion, Consumer<SimZkResult> cb) {
            submit(new Request(Op.SET_DATA, validate(path), data, false, expectedVersion, false, null, cb));
        }

        public void delete(String path, int expectedVersion, Consumer<SimZkResult> cb) {
            if (validate(path).equals("/")) {
                throw new IllegalArgumentException("cannot delete the root");
            }
            submit(new Request(Op.DELETE, path, null, false, expectedVersion, false, null, cb));
        }

        public void getData(String path, boolean watch, Consumer<SimZkResult> cb) {
            submit(new Request(Op.GET_DATA, validate(path), null, false, -1, watch, null, cb));
        }

        public void getChildren(String path, boolean watch, Consumer<SimZkResult> cb) {
            submit(new Request(Op.GET_CHILDREN, validate(path), null, false, -1, watch, null, cb));
        }

        /** Answers NO_NODE with a null stat when missing; a watch set on a missing node fires on its creation. */
        public void exists(String path, boolean watch, Consumer<SimZkResult> cb) {
            submit(new Request(Op.EXISTS, validate(path), null, false, -1, watch, null, cb));
        }

        public void multi(List<SimZkOp> ops, Consumer<SimZkResult> cb) {
            List<SimZkOp> copy = List.copyOf(ops);
            for (SimZkOp op : copy) {
                validate(op.path());
                if (op instanceof SimZkOp.Delete && op.path().equals("/")) {
                    throw new IllegalArgumentException("cannot delete the root");
                }
            }
            submit(new Request(Op.MULTI, null, null, false, -1, false, copy, cb));
        }

        /**
         * A multi of reads only, as ZooKeeper 3.6+ has it: the server answers every read at one point of the tree's
         * history, each on its own ({@link SimZkResult#results}: a missing node fails only its own read), and sets
         * no watch. The request as a whole is OK unless the connection or the session is lost.
         */
        public void multiRead(List<SimZkRead> reads, Consumer<SimZkResult> cb) {
            List<SimZkRead> copy = List.copyOf(reads);
            copy.forEach(read -> validate(read.path()));
            Request request = new Request(Op.MULTI_READ, null, null, false, -1, false, null, cb);
            request.reads = copy;
            submit(request);
        }

        /** A round trip that changes nothing: proof that the session was alive and heard at some point after now. */
        public void sync(Consumer<SimZkResult> cb) {
            submit(new Request(Op.SYNC, null, null, false, -1, false, null, cb));
        }

        // ------------------------------------------------------------ faults

        /**
         * Cuts the link. Requests on the wire reach the server or not at random (a lost one takes the later ones
         * with it); replies and watch events on the wire are lost. The client notices one delay later: in-flight
         * requests then complete with CONNECTION_LOSS, then {@link SimZkSessionEvent#DISCONNECTED}.
         */
        public void disconnect() {
            if (!linkUp || dead()) {
                return;
            }
            linkUp = false;
            boolean reaching = true;
            for (UpItem up : uplink) {
                up.task.cancel();
                if (reaching && up.request != null && random.nextBoolean()) {
                    receive(this, up, true);
                } else {
                    reaching = false;
                }
            }
            uplink.clear();
            List<DownItem> requeue = new ArrayList<>();
            for (DownItem down : downlink) {
                down.task.cancel();
                if (down.kind == DownKind.WATCH && down.watch.known()) {
                    requeue.add(down);
                }
            }
            downlink.clear();
            if (session.alive) {
                // Events the client never saw, for watches it knows of, reach it after the next handshake, as the
                // real client's watch re-registration makes happen.
                session.held.addAll(0, requeue);
                session.held.removeIf(held -> !held.watch.known());
                dropServerConnection();
                forgetUnacknowledgedWatches(session);
            }
            startEpisode();
            if (!noticePending) {
                noticePending = true;
                scheduler.after(delay(), () -> inbound(late -> {
                    noticePending = false;
                    connectionLost();
                }));
            }
        }

        /**
         * Heals the link. The client then reconnects: the server answers SYNC_CONNECTED, or EXPIRED if it has
         * expired the session in the meantime.
         */
        public void reconnect() {
            if (linkUp || dead()) {
                return;
            }
            linkUp = true;
            if (!noticePending) {
                inbound(late -> {
                    if (state == State.DISCONNECTED && linkUp) {
                        startHandshake();
                    }
                });
            }
        }

        /** Freezes the process (a GC pause): the server stops hearing it, and nothing reaches it until resumed. */
        public void pause() {
            if (paused || dead()) {
                return;
            }
            beforeHearingChange(session);
            paused = true;
            afterHearingChange(session);
        }

        /**
         * Thaws the process: what arrived meanwhile is delivered in order. If the server expired the session
         * meanwhile, the process finds out only now, first as DISCONNECTED, then EXPIRED a round trip later.
         */
        public void resume() {
            if (!paused) {
                return;
            }
            beforeHearingChange(session);
            paused = false;
            afterHearingChange(session);
            while (!paused && !inbox.isEmpty()) {
                inbox.poll().run(true);
            }
        }

        /**
         * Ends the session at once (its ephemerals go in one commit). Requests not yet answered complete with
         * SESSION_EXPIRED and are not applied; no session event follows.
         */
        public void close() {
            if (dead()) {
                return;
            }
            state = State.CLOSED;
            abandonLink();
            inbox.clear();
            if (session.alive) {
                endSession(session, true);
            }
            List<Request> failed = new ArrayList<>(outstanding);
            outstanding.clear();
            for (Request request : failed) {
                scheduler.after(0, () -> complete(request, SimZkResult.of(SimZkCode.SESSION_EXPIRED,
                        request.sentAtMs)));
            }
        }

        // ------------------------------------------------------------ internals

        private boolean dead() {
            return state == State.EXPIRED || state == State.CLOSED;
        }

        private void submit(Request request) {
            if (paused) {
                throw new IllegalStateException(name + " is paused: a frozen process cannot issue requests");
            }
            request.sentAtMs = scheduler.nowMs();
            switch (state) {
                case EXPIRED, CLOSED -> promptly(request, SimZkCode.SESSION_EXPIRED);
                case DISCONNECTED -> promptly(request, SimZkCode.CONNECTION_LOSS);
                case CONNECTING, CONNECTED -> {
                    outstanding.add(request);
                    if (linkUp) {
                        sendUp(new UpItem(request, epoch));
                    }
                    // else: written to a dead socket; it fails when the client notices.
                }
            }
        }

        private void promptly(Request request, SimZkCode code) {
            scheduler.after(0, () -> inbound(late -> complete(request, SimZkResult.of(code, request.sentAtMs))));
        }

        private void complete(Request request, SimZkResult result) {
            if (request.completed) {
                return;
            }
            request.completed = true;
            outstanding.remove(request);
            if (request.callback != null) {
                request.callback.accept(result);
            }
        }

        private void failOutstanding(SimZkCode code) {
            List<Request> failed = new ArrayList<>(outstanding);
            outstanding.clear();
            for (Request request : failed) {
                complete(request, SimZkResult.of(code, request.sentAtMs));
            }
        }

        private void sendUp(UpItem item) {
            long due = Math.max(scheduler.nowMs() + delay(), lastUpDueMs);
            lastUpDueMs = due;
            uplink.add(item);
            item.task = scheduler.at(due, () -> {
                uplink.remove(item);
                receive(this, item, false);
            });
        }

        /** False when the link is down and the item cannot be sent. */
        private boolean sendDown(DownItem item) {
            if (!linkUp || dead()) {
                return false;
            }
            long due = Math.max(scheduler.nowMs() + delay(), lastDownDueMs);
            lastDownDueMs = due;
            downlink.add(item);
            item.task = scheduler.at(due, () -> {
                downlink.remove(item);
                if (item.kind == DownKind.REPLY) {
                    item.request.replyArrived = true;
                }
                inbound(late -> process(item, late));
            });
            return true;
        }

        /** Runs a reaction of the process now, or when it resumes. */
        private void inbound(Inbound action) {
            if (paused) {
                inbox.add(action);
            } else {
                action.run(false);
            }
        }

        private void process(DownItem item, boolean late) {
            if (dead()) {
                return;
            }
            switch (item.kind) {
                case REPLY -> complete(item.request, item.result);
                case WATCH -> listener.onWatch(item.event);
                case SYNC_CONNECTED -> {
                    if (state == State.CONNECTING && item.epoch == epoch) {
                        state = State.CONNECTED;
                        endEpisode();
                        listener.onSession(SimZkSessionEvent.SYNC_CONNECTED);
                    }
                }
                case EXPIRED -> {
                    if (item.epoch == epoch) {
                        die();
                    }
                }
                case SESSION_CLOSED -> {
                    if (late) {
                        startEpisode();
                        connectionLost();
                    } else {
                        die();
                    }
                }
            }
        }

        private void connectionLost() {
            if (dead()) {
                return;
            }
            boolean wasConnected = state == State.CONNECTED;
            state = State.DISCONNECTED;
            failOutstanding(SimZkCode.CONNECTION_LOSS);
            if (wasConnected) {
                listener.onSession(SimZkSessionEvent.DISCONNECTED);
            }
            if (linkUp && !dead()) {
                startHandshake();
            }
        }

        private void startHandshake() {
            state = State.CONNECTING;
            epoch++;
            sendUp(new UpItem(null, epoch));
        }

        private void startEpisode() {
            if (disconnectedSinceMs >= 0) {
                return;
            }
            disconnectedSinceMs = scheduler.nowMs();
            int thisEpisode = ++episode;
            long limitMs = sessionTimeoutMs * 4 / 3 + 1;
            selfExpiry = scheduler.at(disconnectedSinceMs + limitMs, () -> inbound(late -> {
                if (!dead() && episode == thisEpisode && disconnectedSinceMs >= 0) {
                    die();
                }
            }));
        }

        private void endEpisode() {
            disconnectedSinceMs = -1;
            if (selfExpiry != null) {
                selfExpiry.cancel();
                selfExpiry = null;
            }
        }

        private void die() {
            state = State.EXPIRED;
            endEpisode();
            abandonLink();
            listener.onSession(SimZkSessionEvent.EXPIRED);
            failOutstanding(SimZkCode.SESSION_EXPIRED);
        }

        /** The process stops using its connection; the server, if still attached, stops hearing it. */
        private void abandonLink() {
            if (selfExpiry != null) {
                selfExpiry.cancel();
                selfExpiry = null;
            }
            uplink.forEach(up -> up.task.cancel());
            uplink.clear();
            downlink.forEach(down -> down.task.cancel());
            downlink.clear();
            if (session.alive && session.connOpen) {
                dropServerConnection();
            }
        }

        private void dropServerConnection() {
            if (!session.connOpen) {
                return;
            }
            beforeHearingChange(session);
            session.connOpen = false;
            afterHearingChange(session);
        }
    }

    // ---------------------------------------------------------------- server

    private void receive(Client client, UpItem item, boolean replyLost) {
        Session session = client.session;
        if (item.request == null) {
            if (!session.alive) {
                client.sendDown(DownItem.expired(item.epoch));
                return;
            }
            beforeHearingChange(session);
            session.connOpen = true;
            session.connEpoch = item.epoch;
            session.lastHeardMs = scheduler.nowMs();
            afterHearingChange(session);
            client.sendDown(DownItem.syncConnected(item.epoch));
            List<DownItem> held = new ArrayList<>(session.held);
            session.held.clear();
            held.forEach(client::sendDown);
            return;
        }
        if (!session.alive || !session.connOpen || item.epoch != session.connEpoch) {
            return;
        }
        session.lastHeardMs = Math.max(session.lastHeardMs, scheduler.nowMs());
        SimZkResult result = apply(session, item.request, !replyLost);
        if (!replyLost) {
            client.sendDown(DownItem.reply(item.request, result));
        }
    }

    private SimZkResult apply(Session session, Request request, boolean setWatches) {
        long sentAt = request.sentAtMs;
        switch (request.op) {
            case SYNC:
                return SimZkResult.of(SimZkCode.OK, sentAt);
            case GET_DATA: {
                ZNode node = nodes.get(request.path);
                if (node == null) {
                    return SimZkResult.of(SimZkCode.NO_NODE, sentAt);
                }
                if (request.watch && setWatches) {
                    addWatch(dataWatches, request.path, session, request);
                }
                return new SimZkResult(SimZkCode.OK, node.stat(), node.data, List.of(), -1, sentAt);
            }
            case GET_CHILDREN: {
                ZNode node = nodes.get(request.path);
                if (node == null) {
                    return SimZkResult.of(SimZkCode.NO_NODE, sentAt);
                }
                if (request.watch && setWatches) {
                    addWatch(childWatches, request.path, session, request);
                }
                return new SimZkResult(SimZkCode.OK, node.stat(), null, List.copyOf(node.children), -1, sentAt);
            }
            case EXISTS: {
                ZNode node = nodes.get(request.path);
                if (request.watch && setWatches) {
                    addWatch(dataWatches, request.path, session, request);
                }
                return node == null ? SimZkResult.of(SimZkCode.NO_NODE, sentAt)
                        : new SimZkResult(SimZkCode.OK, node.stat(), null, List.of(), -1, sentAt);
            }
            case CREATE: {
                Txn txn = new Txn(session.id);
                SimZkCode code = txn.create(request.path, request.data, request.ephemeral ? session.id : 0);
                return finishSingle(txn, code, request.path, sentAt);
            }
            case SET_DATA: {
                Txn txn = new Txn(session.id);
                SimZkCode code = txn.setData(request.path, request.data, request.version);
                return finishSingle(txn, code, request.path, sentAt);
            }
            case DELETE: {
                Txn txn = new Txn(session.id);
                SimZkCode code = txn.delete(request.path, request.version);
                return finishSingle(txn, code, null, sentAt);
            }
            case MULTI_READ:
                return new SimZkResult(SimZkCode.OK, null, null, List.of(), -1, sentAt, readAll(request.reads, sentAt));
            case MULTI: {
                Txn txn = new Txn(session.id);
                for (int i = 0; i < request.ops.size(); i++) {
                    SimZkCode code = txn.apply(request.ops.get(i), session.id);
                    if (code != SimZkCode.OK) {
                        txn.rollback();
                        return new SimZkResult(code, null, null, List.of(), i, sentAt);
                    }
                }
                txn.commit(false);
                return SimZkResult.of(SimZkCode.OK, sentAt);
            }
            default:
                throw new AssertionError(request.op);
        }
    }

    private List<SimZkResult> readAll(List<SimZkRead> reads, long sentAt) {
        List<SimZkResult> results = new ArrayList<>(reads.size());
        for (SimZkRead read : reads) {
            ZNode node = nodes.get(read.path());
            if (node == null) {
                results.add(SimZkResult.of(SimZkCode.NO_NODE, sentAt));
            } else if (read.kind() == SimZkRead.Kind.DATA) {
                results.add(new SimZkResult(SimZkCode.OK, node.stat(), node.data, List.of(), -1, sentAt));
            } else {
                results.add(new SimZkResult(SimZkCode.OK, node.stat(), null, List.copyOf(node.children), -1, sentAt));
            }
        }
        return results;
    }

    private SimZkResult finishSingle(Txn txn, SimZkCode code, String statPath, long sentAt) {
        if (code != SimZkCode.OK) {
            txn.rollback();
            return SimZkResult.of(code, sentAt);
        }
        txn.commit(false);
        SimZkStat stat = statPath == null ? null : nodes.get(statPath).stat();
        return new SimZkResult(SimZkCode.OK, stat, null, List.of(), -1, sentAt);
    }

    /** Ends a session (expiry or close): its watches go, its ephemerals go in one commit, its connection closes. */
    private void endSession(Session session, boolean closedByClient) {
        if (!session.alive) {
            return;
        }
        session.alive = false;
        if (session.expiryTask != null) {
            session.expiryTask.cancel();
            session.expiryTask = null;
        }
        removeWatches(session, w -> true);
        session.held.clear();
        Txn txn = new Txn(session.id);
        for (String path : new ArrayList<>(session.ephemerals)) {
            SimZkCode code = txn.delete(path, -1);
            if (code != SimZkCode.OK) {
                throw new AssertionError("cannot delete ephemeral " + path + ": " + code);
            }
        }
        txn.commit(true);
        if (session.connOpen) {
            session.connOpen = false;
            if (!closedByClient) {
                session.client.sendDown(DownItem.sessionClosed());
            }
        }
    }

    private boolean heard(Session session) {
        return session.alive && session.connOpen && !session.client.paused;
    }

    private void beforeHearingChange(Session session) {
        if (heard(session)) {
            session.lastHeardMs = scheduler.nowMs();
        }
    }

    /** Arms the expiry clock when the server stops hearing a session, disarms it when it hears it again. */
    private void afterHearingChange(Session session) {
        if (!session.alive) {
            return;
        }
        if (heard(session)) {
            if (session.expiryTask != null) {
                session.expiryTask.cancel();
                session.expiryTask = null;
            }
        } else if (session.expiryTask == null) {
            session.expiryTask = scheduler.at(session.lastHeardMs + session.timeoutMs, () -> checkExpiry(session));
        }
    }

    private void checkExpiry(Session session) {
        session.expiryTask = null;
        if (!session.alive || heard(session)) {
            return;
        }
        long dueMs = session.lastHeardMs + session.timeoutMs;
        if (scheduler.nowMs() >= dueMs) {
            endSession(session, false);
        } else {
            session.expiryTask = scheduler.at(dueMs, () -> checkExpiry(session));
        }
    }

    // ---------------------------------------------------------------- watches

    private void addWatch(Map<String, LinkedHashMap<Long, Watch>> table, String path, Session session,
            Request request) {
        table.computeIfAbsent(path, p -> new LinkedHashMap<>())
                .computeIfAbsent(session.id, id -> new Watch(session))
                .setters.add(request);
    }

    private void forgetUnacknowledgedWatches(Session session) {
        removeWatches(session, w -> !w.known());
    }

    private void removeWatches(Session session, Predicate<Watch> which) {
        for (Map<String, LinkedHashMap<Long, Watch>> table : List.of(dataWatches, childWatches)) {
            Iterator<Map.Entry<String, LinkedHashMap<Long, Watch>>> it = table.entrySet().iterator();
            while (it.hasNext()) {
                LinkedHashMap<Long, Watch> watchers = it.next().getValue();
                Watch watch = watchers.get(session.id);
                if (watch != null && which.test(watch)) {
                    watchers.remove(session.id);
                }
                if (watchers.isEmpty()) {
                    it.remove();
                }
            }
        }
    }

    private void trigger(String path, SimZkWatchEvent.Type type) {
        LinkedHashMap<Long, Watch> fired = new LinkedHashMap<>();
        switch (type) {
            case NODE_CREATED, NODE_DATA_CHANGED -> take(dataWatches, path, fired);
            case NODE_CHILDREN_CHANGED -> take(childWatches, path, fired);
            case NODE_DELETED -> {
                take(dataWatches, path, fired);
                take(childWatches, path, fired);
            }
        }
        SimZkWatchEvent event = new SimZkWatchEvent(type, path);
        for (Watch watch : fired.values()) {
            Session session = watch.session;
            if (!session.alive) {
                continue;
            }
            DownItem item = DownItem.watch(event, watch);
            if (!session.connOpen || !session.client.sendDown(item)) {
                session.held.add(item);
            }
        }
    }

    private static void take(Map<String, LinkedHashMap<Long, Watch>> table, String path,
            LinkedHashMap<Long, Watch> into) {
        LinkedHashMap<Long, Watch> watchers = table.remove(path);
        if (watchers != null) {
            watchers.forEach(into::putIfAbsent);
        }
    }

    // ---------------------------------------------------------------- tree and transactions

    /**
     * Applies changes in place with an undo log, so a multi is validated against its own earlier ops (create
     * {@code /a} then {@code /a/b}) and still commits all or nothing under a single zxid.
     */
    private final class Txn {
        private final long sessionId;
        private final long zxid = lastZxid + 1;
        private final List<SimZkApplied> changes = new ArrayList<>();
        private final List<Runnable> undo = new ArrayList<>();
        private final List<Map.Entry<String, SimZkWatchEvent.Type>> triggers = new ArrayList<>();

        Txn(long sessionId) {
            this.sessionId = sessionId;
        }

        SimZkCode apply(SimZkOp op, long owner) {
            if (op instanceof SimZkOp.Check check) {
                ZNode node = nodes.get(check.path());
                if (node == null) {
                    return SimZkCode.NO_NODE;
                }
                return versionMatches(node, check.version()) ? SimZkCode.OK : SimZkCode.BAD_VERSION;
            } else if (op instanceof SimZkOp.Create create) {
                return create(create.path(), create.data(), create.ephemeral() ? owner : 0);
            } else if (op instanceof SimZkOp.SetData set) {
                return setData(set.path(), set.data(), set.version());
            } else if (op instanceof SimZkOp.Delete delete) {
                return delete(delete.path(), delete.version());
            }
            throw new AssertionError(op);
        }

        SimZkCode create(String path, Object data, long owner) {
            if (path.equals("/")) {
                return SimZkCode.NODE_EXISTS;
            }
            ZNode parent = nodes.get(parentOf(path));
            if (parent == null) {
                return SimZkCode.NO_NODE;
            }
            if (nodes.containsKey(path)) {
                return SimZkCode.NODE_EXISTS;
            }
            if (parent.ephemeralOwner != 0) {
                return SimZkCode.NO_CHILDREN_FOR_EPHEMERALS;
            }
            ZNode node = new ZNode(path, data, zxid, owner);
            String name = nameOf(path);
            nodes.put(path, node);
            parent.children.add(name);
            parent.cversion++;
            Session owning = owner == 0 ? null : sessions.get(owner);
            if (owning != null) {
                owning.ephemerals.add(path);
            }
            undo.add(() -> {
                nodes.remove(path);
                parent.children.remove(name);
                parent.cversion--;
                if (owning != null) {
                    owning.ephemerals.remove(path);
                }
            });
            changes.add(new SimZkApplied(path, SimZkApplied.Kind.CREATED, null, data, 0));
            triggers.add(Map.entry(path, SimZkWatchEvent.Type.NODE_CREATED));
            triggers.add(Map.entry(parentOf(path), SimZkWatchEvent.Type.NODE_CHILDREN_CHANGED));
            return SimZkCode.OK;
        }

        SimZkCode setData(String path, Object data, int expectedVersion) {
            ZNode node = nodes.get(path);
            if (node == null) {
                return SimZkCode.NO_NODE;
            }
            if (!versionMatches(node, expectedVersion)) {
                return SimZkCode.BAD_VERSION;
            }
            Object oldData = node.data;
            long oldMzxid = node.mzxid;
            node.data = data;
            node.version++;
            node.mzxid = zxid;
            undo.add(() -> {
                node.data = oldData;
                node.version--;
                node.mzxid = oldMzxid;
            });
            changes.add(new SimZkApplied(path, SimZkApplied.Kind.DATA_SET, oldData, data, node.version));
            triggers.add(Map.entry(path, SimZkWatchEvent.Type.NODE_DATA_CHANGED));
            return SimZkCode.OK;
        }

        SimZkCode delete(String path, int expectedVersion) {
            ZNode node = nodes.get(path);
            if (node == null) {
                return SimZkCode.NO_NODE;
            }
            if (!versionMatches(node, expectedVersion)) {
                return SimZkCode.BAD_VERSION;
            }
            if (!node.children.isEmpty()) {
                return SimZkCode.NOT_EMPTY;
            }
            ZNode parent = nodes.get(parentOf(path));
            String name = nameOf(path);
            nodes.remove(path);
            parent.children.remove(name);
            parent.cversion++;
            Session owning = node.ephemeralOwner == 0 ? null : sessions.get(node.ephemeralOwner);
            if (owning != null) {
                owning.ephemerals.remove(path);
            }
            undo.add(() -> {
                nodes.put(path, node);
                parent.children.add(name);
                parent.cversion--;
                if (owning != null) {
                    owning.ephemerals.add(path);
                }
            });
            changes.add(new SimZkApplied(path, SimZkApplied.Kind.DELETED, node.data, null, -1));
            triggers.add(Map.entry(path, SimZkWatchEvent.Type.NODE_DELETED));
            triggers.add(Map.entry(parentOf(path), SimZkWatchEvent.Type.NODE_CHILDREN_CHANGED));
            return SimZkCode.OK;
        }

        void rollback() {
            for (int i = undo.size() - 1; i >= 0; i--) {
                undo.get(i).run();
            }
            undo.clear();
            changes.clear();
            triggers.clear();
        }

        /** Takes the zxid (unless there is nothing to record), tells the commit listeners, then fires watches. */
        void commit(boolean evenIfEmpty) {
            if (changes.isEmpty() && !evenIfEmpty) {
                return;
            }
            lastZxid = zxid;
            SimZkCommit commit = new SimZkCommit(zxid, sessionId, scheduler.nowMs(), changes);
            for (Consumer<SimZkCommit> listener : List.copyOf(commitListeners)) {
                listener.accept(commit);
            }
            for (Map.Entry<String, SimZkWatchEvent.Type> t : triggers) {
                trigger(t.getKey(), t.getValue());
            }
        }
    }

    private static boolean versionMatches(ZNode node, int expectedVersion) {
        return expectedVersion == -1 || expectedVersion == node.version;
    }

    private long delay() {
        return delayMinMs == delayMaxMs ? delayMinMs : random.nextLong(delayMinMs, delayMaxMs + 1);
    }

    private static String validate(String path) {
        Objects.requireNonNull(path, "path");
        if (path.equals("/")) {
            return path;
        }
        if (!path.startsWith("/") || path.endsWith("/") || path.contains("//")) {
            throw new IllegalArgumentException("invalid znode path: " + path);
        }
        return path;
    }

    private static String parentOf(String path) {
        int slash = path.lastIndexOf('/');
        return slash == 0 ? "/" : path.substring(0, slash);
    }

    private static String nameOf(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    private static final class ZNode {
        final String path;
        final long czxid;
        final long ephemeralOwner;
        final TreeSet<String> children = new TreeSet<>();
        Object data;
        int version;
        int cversion;
        long mzxid;

        ZNode(String path, Object data, long zxid, long ephemeralOwner) {
            this.path = path;
            this.data = data;
            this.czxid = zxid;
            this.mzxid = zxid;
            this.ephemeralOwner = ephemeralOwner;
        }

        SimZkStat stat() {
            return new SimZkStat(version, cversion, czxid, mzxid, ephemeralOwner);
        }

        SimZkNode snapshot() {
            return new SimZkNode(path, data, stat());
        }
    }

    private static final class Session {
        final long id;
        final long timeoutMs;
        final Client client;
        final TreeSet<String> ephemerals = new TreeSet<>();
        /** Watch events fired while no connection was attached, delivered after the next handshake. */
        final List<DownItem> held = new ArrayList<>();
        boolean alive = true;
        boolean connOpen;
        int connEpoch;
        long lastHeardMs;
        Scheduler.Task expiryTask;

        Session(long id, long timeoutMs, Client client) {
            this.id = id;
            this.timeoutMs = timeoutMs;
            this.client = client;
        }
    }

    /** A session's registration on one path in one table; one per session, as the server keeps one per connection. */
    private static final class Watch {
        final Session session;
        final List<Request> setters = new ArrayList<>();

        Watch(Session session) {
            this.session = session;
        }

        /** Whether the client knows of this watch (got a reply that set it), and so would re-register it. */
        boolean known() {
            for (Request request : setters) {
                if (request.replyArrived) {
                    return true;
                }
            }
            return false;
        }
    }

    private enum Op {
        CREATE, SET_DATA, DELETE, GET_DATA, GET_CHILDREN, EXISTS, MULTI, MULTI_READ, SYNC
    }

    private static final class Request {
        final Op op;
        final String path;
        final Object data;
        final boolean ephemeral;
        final int version;
        final boolean watch;
        final List<SimZkOp> ops;
        /** The reads of a {@code MULTI_READ}. */
        List<SimZkRead> reads;
        final Consumer<SimZkResult> callback;
        long sentAtMs;
        boolean replyArrived;
        boolean completed;

        Request(Op op, String path, Object data, boolean ephemeral, int version, boolean watch, List<SimZkOp> ops,
                Consumer<SimZkResult> callback) {
            this.op = op;
            this.path = path;
            this.data = data;
            this.ephemeral = ephemeral;
            this.version = version;
            this.watch = watch;
            this.ops = ops;
            this.callback = callback;
        }
    }

    /** A request or, with a null request, a connection handshake, on its way to the server. */
    private static final class UpItem {
        final Request request;
        final int epoch;
        Scheduler.Task task;

        UpItem(Request request, int epoch) {
            this.request = request;
            this.epoch = epoch;
        }
    }

    private enum DownKind {
        REPLY, WATCH, SYNC_CONNECTED, EXPIRED, SESSION_CLOSED
    }

    private static final class DownItem {
        final DownKind kind;
        final Request request;
        final SimZkResult result;
        final SimZkWatchEvent event;
        final Watch watch;
        final int epoch;
        Scheduler.Task task;

        private DownItem(DownKind kind, Request request, SimZkResult result, SimZkWatchEvent event, Watch watch,
                int epoch) {
            this.kind = kind;
            this.request = request;
            this.result = result;
            this.event = event;
            this.watch = watch;
            this.epoch = epoch;
        }

        static DownItem reply(Request request, SimZkResult result) {
            return new DownItem(DownKind.REPLY, request, result, null, null, 0);
        }

        static DownItem watch(SimZkWatchEvent event, Watch watch) {
            return new DownItem(DownKind.WATCH, null, null, event, watch, 0);
        }

        static DownItem syncConnected(int epoch) {
            return new DownItem(DownKind.SYNC_CONNECTED, null, null, null, null, epoch);
        }

        static DownItem expired(int epoch) {
            return new DownItem(DownKind.EXPIRED, null, null, null, null, epoch);
        }

        static DownItem sessionClosed() {
            return new DownItem(DownKind.SESSION_CLOSED, null, null, null, null, 0);
        }
    }

    /** A reaction of the client process; {@code late} when it had queued up during a pause. */
    @FunctionalInterface
    private interface Inbound {
        void run(boolean late);
    }
}
