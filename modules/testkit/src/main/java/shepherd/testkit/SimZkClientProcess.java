package shepherd.testkit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import shepherd.testkit.SimZooKeeper.Client.State;

/**
 * One client process behind a {@link SimZooKeeper.Client}: its own view of the session, its requests not yet
 * answered, its link to the server, and its own expiry timer. Every reaction of the client (callbacks, listener
 * calls, noticing a dead link, the expiry timer) runs as the process; while paused they queue up, which is what
 * makes a resumed process act on a stale view of the world.
 */
final class SimZkClientProcess {
    /** A reaction of the process; {@code late} when it had queued up during a pause. */
    @FunctionalInterface
    private interface Inbound {
        void run(boolean late);
    }

    private final String name;
    private final long sessionId;
    private final long sessionTimeoutMs;
    private final SimZkListener listener;
    private final Scheduler scheduler;
    private final SimZkWire wire;
    private final SimZkServer server;
    private final SimZkLink link;
    private SimZkServerSession session;

    private State state = State.CONNECTING;
    private boolean paused;
    /** The connection attempt; answers to an earlier one are ignored. */
    private int epoch = 1;
    private final List<SimZkRequest> outstanding = new ArrayList<>();
    private final Deque<Inbound> inbox = new ArrayDeque<>();
    private boolean noticePending;
    private long disconnectedSinceMs = -1;
    private int episode;
    private Scheduler.Task selfExpiry;

    SimZkClientProcess(String name, long sessionId, long sessionTimeoutMs, SimZkListener listener,
            Scheduler scheduler, SimZkWire wire, SimZkServer server) {
        this.name = name;
        this.sessionId = sessionId;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.listener = listener;
        this.scheduler = scheduler;
        this.wire = wire;
        this.server = server;
        this.link = new SimZkLink(scheduler, wire, (item, replyLost) -> server.receive(this, item, replyLost),
                this::arrived);
    }

    void attach(SimZkServerSession session) {
        this.session = session;
    }

    SimZkServerSession session() {
        return session;
    }

    String name() {
        return name;
    }

    long sessionId() {
        return sessionId;
    }

    long sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    State state() {
        return state;
    }

    boolean paused() {
        return paused;
    }

    boolean linkUp() {
        return link.up();
    }

    int epoch() {
        return epoch;
    }

    // ------------------------------------------------------------ requests

    void submit(SimZkRequest request) {
        if (paused) {
            throw new IllegalStateException(name + " is paused: a frozen process cannot issue requests");
        }
        request.sentAtMs = scheduler.nowMs();
        switch (state) {
            case EXPIRED, CLOSED -> promptly(request, SimZkCode.SESSION_EXPIRED);
            case DISCONNECTED -> promptly(request, SimZkCode.CONNECTION_LOSS);
            case CONNECTING, CONNECTED -> {
                outstanding.add(request);
                if (link.up()) {
                    link.sendUp(new SimZkToServer(request, epoch));
                }
                // else: written to a dead socket; it fails when the client notices.
            }
        }
    }

    private void promptly(SimZkRequest request, SimZkCode code) {
        scheduler.after(0, () -> inbound(late -> complete(request, SimZkResult.of(code, request.sentAtMs))));
    }

    private void complete(SimZkRequest request, SimZkResult result) {
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
        List<SimZkRequest> failed = new ArrayList<>(outstanding);
        outstanding.clear();
        for (SimZkRequest request : failed) {
            complete(request, SimZkResult.of(code, request.sentAtMs));
        }
    }

    // ------------------------------------------------------------ faults

    /** See {@link SimZooKeeper.Client#disconnect}. */
    void disconnect() {
        if (!link.up() || dead()) {
            return;
        }
        List<SimZkToClient> requeue = link.cut();
        if (session.alive) {
            // Events the client never saw, for watches it knows of, reach it after the next handshake, as the
            // real client's watch re-registration makes happen.
            session.held.addAll(0, requeue);
            session.held.removeIf(held -> !held.watch.known());
            dropServerConnection();
            server.forgetUnacknowledgedWatches(session);
        }
        startEpisode();
        if (!noticePending) {
            noticePending = true;
            scheduler.after(wire.delay(), () -> inbound(late -> {
                noticePending = false;
                connectionLost();
            }));
        }
    }

    /** See {@link SimZooKeeper.Client#reconnect}. */
    void reconnect() {
        if (link.up() || dead()) {
            return;
        }
        link.heal();
        if (!noticePending) {
            inbound(late -> {
                if (state == State.DISCONNECTED && link.up()) {
                    startHandshake();
                }
            });
        }
    }

    void pause() {
        if (paused || dead()) {
            return;
        }
        server.beforeHearingChange(session);
        paused = true;
        server.afterHearingChange(session);
    }

    /** Delivers in order what queued up meanwhile, unless a reaction pauses the process again. */
    void resume() {
        if (!paused) {
            return;
        }
        server.beforeHearingChange(session);
        paused = false;
        server.afterHearingChange(session);
        while (!paused && !inbox.isEmpty()) {
            inbox.poll().run(true);
        }
    }

    /** See {@link SimZooKeeper.Client#close}. */
    void close() {
        if (dead()) {
            return;
        }
        state = State.CLOSED;
        abandonLink();
        inbox.clear();
        if (session.alive) {
            server.endSession(session, true);
        }
        List<SimZkRequest> failed = new ArrayList<>(outstanding);
        outstanding.clear();
        for (SimZkRequest request : failed) {
            scheduler.after(0, () -> complete(request, SimZkResult.of(SimZkCode.SESSION_EXPIRED,
                    request.sentAtMs)));
        }
    }

    // ------------------------------------------------------------ from the server

    /** False when the link is down or the process is done, and the item cannot be sent. */
    boolean sendDown(SimZkToClient item) {
        if (!link.up() || dead()) {
            return false;
        }
        link.sendDown(item);
        return true;
    }

    private void arrived(SimZkToClient item) {
        if (item.kind == SimZkToClient.Kind.REPLY) {
            item.request.replyArrived = true;
        }
        inbound(late -> handle(item, late));
    }

    /** Runs a reaction of the process now, or when it resumes. */
    private void inbound(Inbound action) {
        if (paused) {
            inbox.add(action);
        } else {
            action.run(false);
        }
    }

    private void handle(SimZkToClient item, boolean late) {
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

    // ------------------------------------------------------------ the client's view of its session

    private boolean dead() {
        return state == State.EXPIRED || state == State.CLOSED;
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
        if (link.up() && !dead()) {
            startHandshake();
        }
    }

    private void startHandshake() {
        state = State.CONNECTING;
        epoch++;
        link.sendUp(new SimZkToServer(null, epoch));
    }

    /**
     * Starts the client's own expiry timer, unless one runs: a client that stays without a connection for 4/3 of its
     * session timeout gives its session up as expired, whether or not the server has ended it yet.
     */
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
        link.abandon();
        if (session.alive && session.connOpen) {
            dropServerConnection();
        }
    }

    private void dropServerConnection() {
        if (!session.connOpen) {
            return;
        }
        server.beforeHearingChange(session);
        session.connOpen = false;
        server.afterHearingChange(session);
    }
}
