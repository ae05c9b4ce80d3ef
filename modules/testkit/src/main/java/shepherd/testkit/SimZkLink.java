package shepherd.testkit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

/**
 * A client's TCP connection to the server, one FIFO stream each way: each item takes a delay from the
 * {@link SimZkWire} but never overtakes the item sent before it. Cutting the link loses a suffix of the requests in
 * flight, never one in the middle, and every reply and event in flight.
 */
final class SimZkLink {
    /** The server end: {@code replyLost} for a request that reached it as the link went down. */
    @FunctionalInterface
    interface Server {
        void receive(SimZkToServer item, boolean replyLost);
    }

    private final Scheduler scheduler;
    private final SimZkWire wire;
    private final Server server;
    private final Consumer<SimZkToClient> client;
    private boolean up = true;
    private final Deque<SimZkToServer> uplink = new ArrayDeque<>();
    private final Deque<SimZkToClient> downlink = new ArrayDeque<>();
    private long lastUpDueMs;
    private long lastDownDueMs;

    SimZkLink(Scheduler scheduler, SimZkWire wire, Server server, Consumer<SimZkToClient> client) {
        this.scheduler = scheduler;
        this.wire = wire;
        this.server = server;
        this.client = client;
    }

    boolean up() {
        return up;
    }

    void sendUp(SimZkToServer item) {
        long due = Math.max(scheduler.nowMs() + wire.delay(), lastUpDueMs);
        lastUpDueMs = due;
        uplink.add(item);
        item.task = scheduler.at(due, () -> {
            uplink.remove(item);
            server.receive(item, false);
        });
    }

    void sendDown(SimZkToClient item) {
        long due = Math.max(scheduler.nowMs() + wire.delay(), lastDownDueMs);
        lastDownDueMs = due;
        downlink.add(item);
        item.task = scheduler.at(due, () -> {
            downlink.remove(item);
            client.accept(item);
        });
    }

    /**
     * Takes the link down. Requests on the wire reach the server or not at random, in order, until the first that
     * does not (a handshake on the wire never does); replies and events on the wire are lost. Returns the lost watch
     * events of watches the client knows of: the server owes them to the client after its next handshake.
     */
    List<SimZkToClient> cut() {
        up = false;
        boolean reaching = true;
        for (SimZkToServer item : uplink) {
            item.task.cancel();
            if (reaching && item.request != null && wire.reachedServer()) {
                server.receive(item, true);
            } else {
                reaching = false;
            }
        }
        uplink.clear();
        List<SimZkToClient> requeue = new ArrayList<>();
        for (SimZkToClient item : downlink) {
            item.task.cancel();
            if (item.kind == SimZkToClient.Kind.WATCH && item.watch.known()) {
                requeue.add(item);
            }
        }
        downlink.clear();
        return requeue;
    }

    void heal() {
        up = true;
    }

    /** Drops everything on the wire both ways; the link stays as it is. */
    void abandon() {
        uplink.forEach(item -> item.task.cancel());
        uplink.clear();
        downlink.forEach(item -> item.task.cancel());
        downlink.clear();
    }
}
