package shepherd.testkit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The server's sessions and their expiry, on the server's own clock: a session the server stops hearing (its
 * connection dropped, its process paused) expires one timeout after it was last heard, whatever its client believes
 * meanwhile. Its end is one commit that deletes its ephemerals.
 */
final class SimZkSessions {
    private static final long FIRST_SESSION_ID = 0x1_0000_0001L;

    private final Scheduler scheduler;
    private final SimZkDataTree tree;
    private final SimZkWatches watches;
    private final Map<Long, SimZkServerSession> sessions = new LinkedHashMap<>();
    private long nextSessionId = FIRST_SESSION_ID;

    SimZkSessions(Scheduler scheduler, SimZkDataTree tree, SimZkWatches watches) {
        this.scheduler = scheduler;
        this.tree = tree;
        this.watches = watches;
    }

    long nextId() {
        return nextSessionId++;
    }

    SimZkServerSession open(SimZkClientProcess client) {
        SimZkServerSession session = new SimZkServerSession(client.sessionId(), client.sessionTimeoutMs(), client);
        sessions.put(session.id, session);
        return session;
    }

    /** Null for an id the server never gave out. */
    SimZkServerSession get(long sessionId) {
        return sessions.get(sessionId);
    }

    boolean alive(long sessionId) {
        SimZkServerSession session = sessions.get(sessionId);
        return session != null && session.alive;
    }

    /** Ends a session (expiry or close): its watches go, its ephemerals go in one commit, its connection closes. */
    void end(SimZkServerSession session, boolean closedByClient) {
        if (!session.alive) {
            return;
        }
        session.alive = false;
        if (session.expiryTask != null) {
            session.expiryTask.cancel();
            session.expiryTask = null;
        }
        watches.forgetAll(session);
        session.held.clear();
        SimZkTxn txn = tree.begin(session.id);
        for (String path : tree.ephemeralsOf(session.id)) {
            SimZkCode code = txn.delete(path, -1);
            if (code != SimZkCode.OK) {
                throw new AssertionError("cannot delete ephemeral " + path + ": " + code);
            }
        }
        txn.commit(true);
        if (session.connOpen) {
            session.connOpen = false;
            if (!closedByClient) {
                session.client.sendDown(SimZkToClient.sessionClosed());
            }
        }
    }

    /** Call before anything that may change whether the server hears the session: if it did, it heard it now. */
    void beforeHearingChange(SimZkServerSession session) {
        if (session.heard()) {
            session.lastHeardMs = scheduler.nowMs();
        }
    }

    /** Arms the expiry clock when the server stops hearing a session, disarms it when it hears it again. */
    void afterHearingChange(SimZkServerSession session) {
        if (!session.alive) {
            return;
        }
        if (session.heard()) {
            if (session.expiryTask != null) {
                session.expiryTask.cancel();
                session.expiryTask = null;
            }
        } else if (session.expiryTask == null) {
            session.expiryTask = scheduler.at(session.lastHeardMs + session.timeoutMs, () -> checkExpiry(session));
        }
    }

    /** The session expires unless it was heard again, or was heard later than the clock was armed for. */
    private void checkExpiry(SimZkServerSession session) {
        session.expiryTask = null;
        if (!session.alive || session.heard()) {
            return;
        }
        long dueMs = session.lastHeardMs + session.timeoutMs;
        if (scheduler.nowMs() >= dueMs) {
            end(session, false);
        } else {
            session.expiryTask = scheduler.at(dueMs, () -> checkExpiry(session));
        }
    }
}
