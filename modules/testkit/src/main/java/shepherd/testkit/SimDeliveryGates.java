package shepherd.testkit;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The delivery gate of every node of a {@link SimNetwork}: while a node's gate is closed (its process paused), each
 * callback for it is held in order, and once held, later ones queue behind it even with the gate open, so a node
 * sees its callbacks in the order they arrived. Opening the gate releases them as a scheduler action due now.
 */
final class SimDeliveryGates {
    enum Kind { ACCEPT, OPEN, MESSAGE, PEER_CLOSED, CLOSED }

    /** A callback on its way to a node's process. */
    record Callback(Kind kind, SimConnection.End end, Object payload, SimNetwork.Acceptor acceptor) { }

    private final Scheduler scheduler;
    private final Consumer<Callback> run;
    private final Consumer<String> trace;
    private final Set<String> closedGates = new HashSet<>();
    private final Map<String, ArrayDeque<Callback>> held = new HashMap<>();

    /** {@code run} hands a callback to its node's process; {@code trace} takes a line of the network's trace. */
    SimDeliveryGates(Scheduler scheduler, Consumer<Callback> run, Consumer<String> trace) {
        this.scheduler = scheduler;
        this.run = run;
        this.trace = trace;
    }

    void close(String node) {
        if (closedGates.add(node)) {
            trace.accept("gate closed " + node);
        }
    }

    void open(String node) {
        if (closedGates.remove(node)) {
            trace.accept("gate opened " + node);
            ArrayDeque<Callback> queue = held.get(node);
            if (queue != null && !queue.isEmpty()) {
                scheduler.after(0, () -> drain(node));
            }
        }
    }

    boolean isOpen(String node) {
        return !closedGates.contains(node);
    }

    void dispatch(String node, Callback callback) {
        ArrayDeque<Callback> queue = held.get(node);
        if (closedGates.contains(node) || (queue != null && !queue.isEmpty())) {
            held.computeIfAbsent(node, n -> new ArrayDeque<>()).add(callback);
            if (callback.kind() == Kind.MESSAGE) {
                trace.accept("hold " + callback.end() + " " + callback.payload());
            }
            return;
        }
        run.accept(callback);
    }

    /** The process of {@code node} crashed: its gate opens, and what was held for it is returned, no longer held. */
    ArrayDeque<Callback> crashed(String node) {
        closedGates.remove(node);
        return held.remove(node);
    }

    /**
     * {@code end}'s connection broke: what arrived for it but is held for a paused process was not yet read, so it
     * is lost as well. {@code lost} takes each lost message.
     */
    void discard(SimConnection.End end, Consumer<Object> lost) {
        ArrayDeque<Callback> queue = held.get(end.localNode());
        if (queue == null) {
            return;
        }
        Iterator<Callback> it = queue.iterator();
        while (it.hasNext()) {
            Callback callback = it.next();
            if (callback.end() == end && (callback.kind() == Kind.MESSAGE || callback.kind() == Kind.PEER_CLOSED)) {
                it.remove();
                if (callback.kind() == Kind.MESSAGE) {
                    lost.accept(callback.payload());
                }
            }
        }
    }

    private void drain(String node) {
        ArrayDeque<Callback> queue = held.get(node);
        while (queue != null && !queue.isEmpty() && !closedGates.contains(node)) {
            run.accept(queue.poll());
            queue = held.get(node);
        }
    }
}
