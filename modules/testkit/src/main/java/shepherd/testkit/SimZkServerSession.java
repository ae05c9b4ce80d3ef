package shepherd.testkit;

import java.util.ArrayList;
import java.util.List;

/** A session as the server sees it, which the client's own view ({@link SimZooKeeper.Client.State}) may lag. */
final class SimZkServerSession {
    final long id;
    final long timeoutMs;
    final SimZkClientProcess client;
    /** Watch events fired while no connection was attached, delivered after the next handshake. */
    final List<SimZkToClient> held = new ArrayList<>();
    boolean alive = true;
    boolean connOpen;
    /** The client's connection attempt the open connection belongs to. */
    int connEpoch;
    long lastHeardMs;
    Scheduler.Task expiryTask;

    SimZkServerSession(long id, long timeoutMs, SimZkClientProcess client) {
        this.id = id;
        this.timeoutMs = timeoutMs;
        this.client = client;
    }

    /** Whether the server hears the session now: alive, with a connection attached, its process running. */
    boolean heard() {
        return alive && connOpen && !client.paused();
    }
}
