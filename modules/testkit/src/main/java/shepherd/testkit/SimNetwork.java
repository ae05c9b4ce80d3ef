package shepherd.testkit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Predicate;
import shepherd.testkit.SimDeliveryGates.Callback;
import shepherd.testkit.SimDeliveryGates.Kind;

/**
 * A simulated message network between named nodes, driven entirely by a {@link Scheduler} and a seeded
 * {@link Random}, so that a simulation run, faults included, is a pure function of its seed and a failing seed
 * replays exactly.
 *
 * <p>What it models, because the protocol's correctness depends on it:
 * <ul>
 *   <li>each direction of a connection is FIFO; a message takes a delay uniform in [{@code delayMinMs},
 *       {@code delayMaxMs}] but never overtakes the previous one, so {@code delayMaxMs} stays a true bound D on the
 *       one-way delay of any delivered message (the bound timing arguments such as lease expiry rely on);</li>
 *   <li>a graceful {@link SimConnection.End#close() close} loses nothing already sent;</li>
 *   <li>a {@link #cut cut} loses everything in flight (lost, never late) and each end learns of it only after its
 *       own detection delay, in [{@code delayMinMs}, {@code detectMaxMs}]: the window in which a process still
 *       believes in a dead connection;</li>
 *   <li>{@link #partition partitions}, {@link #isolate isolation}, {@link #reset resets} and crashed processes
 *       ({@link #unregister}).</li>
 * </ul>
 * Every callback to a node runs as a scheduler action and passes through that node's delivery gate
 * ({@link #setDeliveryGate}, kept by {@link SimDeliveryGates}), which holds it while the process is paused.
 */
public final class SimNetwork {
    /** How a registered node accepts connections. */
    @FunctionalInterface
    public interface Acceptor {
        /**
         * A connection arrived; returns the handler of the server end, or null after calling
         * {@link SimConnection.End#setHandler} on it.
         */
        SimConnection.Handler accept(SimConnection.End serverEnd);
    }

    /** A message or close notice on the wire. */
    static final class Flight {
        final SimConnection.End from;
        final Object message; // null for the close notice that follows a graceful close
        Scheduler.Task task;

        Flight(SimConnection.End from, Object message) {
            this.from = from;
            this.message = message;
        }
    }

    public static final String CLOSED_BY_PEER = "closed by peer";
    public static final String CUT = "cut";
    public static final String RESET = "reset";
    public static final String REFUSED = "refused";
    public static final String UNREACHABLE = "unreachable";

    private final Scheduler scheduler;
    private final Random random;
    private final long delayMinMs;
    private final long delayMaxMs;
    private long detectMaxMs;

    private final Map<String, Acceptor> acceptors = new HashMap<>();
    /** Live connections by id; iteration in id order keeps fault handling deterministic. */
    private final Map<Long, SimConnection> connections = new LinkedHashMap<>();
    private final SimDeliveryGates gates;
    private final SimReachability reachability = new SimReachability();
    private long nextId = 1;
    private long delivered;
    private long dropped;
    private Consumer<String> trace;

    /** A network whose cuts are detected within {@code 4 × delayMaxMs}. */
    public SimNetwork(Scheduler scheduler, Random random, long delayMinMs, long delayMaxMs) {
        this(scheduler, random, delayMinMs, delayMaxMs, 4 * delayMaxMs);
    }

    public SimNetwork(Scheduler scheduler, Random random, long delayMinMs, long delayMaxMs, long detectMaxMs) {
        if (delayMinMs < 0 || delayMaxMs < delayMinMs) {
            throw new IllegalArgumentException("delays must satisfy 0 <= min <= max, got [" + delayMinMs + ", "
                    + delayMaxMs + "]");
        }
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.random = Objects.requireNonNull(random, "random");
        this.delayMinMs = delayMinMs;
        this.delayMaxMs = delayMaxMs;
        this.gates = new SimDeliveryGates(scheduler, this::run, this::trace);
        setDetectMaxMs(detectMaxMs);
    }

    /** The longest time an end may go on believing in a cut connection. */
    public void setDetectMaxMs(long detectMaxMs) {
        if (detectMaxMs < delayMinMs) {
            throw new IllegalArgumentException("detectMaxMs " + detectMaxMs + " is below delayMinMs " + delayMinMs);
        }
        this.detectMaxMs = detectMaxMs;
    }

    public long delayMinMs() {
        return delayMinMs;
    }

    /** The bound D on the one-way delay of every delivered message. */
    public long delayMaxMs() {
        return delayMaxMs;
    }

    public long detectMaxMs() {
        return detectMaxMs;
    }

    /** Receives one line per connect, send, delivery, drop, close and fault; null to stop. */
    public void onTrace(Consumer<String> listener) {
        this.trace = listener;
    }

    // ---------------------------------------------------------------------------------------------- nodes

    /** Makes {@code node} accept connections; registering again replaces the acceptor (a restarted process). */
    public void register(String node, Acceptor acceptor) {
        acceptors.put(Objects.requireNonNull(node, "node"), Objects.requireNonNull(acceptor, "acceptor"));
        trace("register " + node);
    }

    /**
     * The process of {@code node} crashed: it stops accepting, everything held for it is lost, its delivery gate
     * opens (a restarted process is not paused), its own ends go silent and the peers of every connection to or
     * from it are reset after one delay.
     */
    public void unregister(String node) {
        acceptors.remove(node);
        trace("unregister " + node);
        ArrayDeque<Callback> queue = gates.crashed(node);
        if (queue != null) {
            for (Callback callback : queue) {
                if (callback.kind() == Kind.MESSAGE) {
                    drop(callback.end().peer(), callback.payload(), "crash of " + node);
                }
            }
        }
        for (SimConnection connection : live(c -> c.involves(node))) {
            for (SimConnection.End end : List.of(connection.client(), connection.server())) {
                if (end.localNode().equals(node)) {
                    end.dead = true;
                    end.open = false;
                }
            }
            breakConnection(connection, RESET, delayMaxMs);
        }
    }

    public boolean isRegistered(String node) {
        return acceptors.containsKey(node);
    }

    // ---------------------------------------------------------------------------------------------- connections

    /**
     * Opens a connection from {@code from} to {@code to}. After one delay the server's acceptor is called and the
     * client gets {@code onOpen()}; or, if nobody accepts at {@code to} or the pair is partitioned at that moment,
     * the client gets {@code onClosed("refused")} or {@code onClosed("unreachable")} instead.
     */
    public SimConnection connect(String from, String to, SimConnection.Handler clientHandler) {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(clientHandler, "clientHandler");
        SimConnection connection = new SimConnection(this, nextId++, from, to, clientHandler);
        connections.put(connection.id(), connection);
        long delay = delay(delayMaxMs);
        trace("connect " + connection + " due=" + (scheduler.nowMs() + delay));
        connection.connectTask = scheduler.after(delay, () -> arriveConnect(connection));
        return connection;
    }

    private void arriveConnect(SimConnection connection) {
        connection.connectTask = null;
        SimConnection.End client = connection.client();
        Acceptor acceptor = acceptors.get(connection.to());
        if (acceptor == null || !reachable(connection.from(), connection.to())) {
            String reason = acceptor == null ? REFUSED : UNREACHABLE;
            connection.broken = true;
            trace("refuse " + connection + " " + reason);
            dispatch(client.localNode(), new Callback(Kind.CLOSED, client, reason, null));
            retireIfDone(connection);
            return;
        }
        connection.arrived = true;
        trace("establish " + connection);
        dispatch(connection.to(), new Callback(Kind.ACCEPT, connection.server(), null, acceptor));
        dispatch(connection.from(), new Callback(Kind.OPEN, client, null, null));
    }

    /** The live connection with this id, or null once it is over. */
    public SimConnection connection(long connectionId) {
        return connections.get(connectionId);
    }

    /** Connections on which at least one end may still send. */
    public int openConnections() {
        int count = 0;
        for (SimConnection connection : connections.values()) {
            if (connection.client().isOpen() || connection.server().isOpen()) {
                count++;
            }
        }
        return count;
    }

    // ---------------------------------------------------------------------------------------------- faults

    /**
     * Cuts a connection: everything in flight either way is lost, and each end gets {@code onClosed("cut")} after
     * its own detection delay in [{@code delayMinMs}, {@code detectMaxMs}]. False if no such live connection.
     */
    public boolean cut(long connectionId) {
        return fault(connectionId, CUT, detectMaxMs);
    }

    /** Like {@link #cut} but both ends are told after one normal delay, as after a TCP reset. */
    public boolean reset(long connectionId) {
        return fault(connectionId, RESET, delayMaxMs);
    }

    private boolean fault(long connectionId, String reason, long noticeMaxMs) {
        SimConnection connection = connections.get(connectionId);
        if (connection == null || connection.broken) {
            return false;
        }
        breakConnection(connection, reason, noticeMaxMs);
        return true;
    }

    /** Cuts every connection between {@code a} and {@code b} and refuses new ones until {@link #heal}. */
    public void partition(String a, String b) {
        reachability.partition(a, b);
        trace("partition " + a + " " + b);
        for (SimConnection connection : live(c -> !c.broken && c.between(a, b))) {
            breakConnection(connection, CUT, detectMaxMs);
        }
    }

    public void heal(String a, String b) {
        reachability.heal(a, b);
        trace("heal " + a + " " + b);
    }

    /** Partitions {@code node} from every other node until {@link #rejoin}. */
    public void isolate(String node) {
        reachability.isolate(node);
        trace("isolate " + node);
        for (SimConnection connection : live(c -> !c.broken && c.involves(node) && !c.from().equals(c.to()))) {
            breakConnection(connection, CUT, detectMaxMs);
        }
    }

    public void rejoin(String node) {
        reachability.rejoin(node);
        trace("rejoin " + node);
    }

    /** Whether a new connection between the two would be allowed through (loopback always is). */
    public boolean reachable(String a, String b) {
        return reachability.reachable(a, b);
    }

    private void breakConnection(SimConnection connection, String reason, long noticeMaxMs) {
        if (connection.broken) {
            retireIfDone(connection);
            return;
        }
        connection.broken = true;
        trace(reason + " " + connection);
        if (connection.connectTask != null) {
            connection.connectTask.cancel();
            connection.connectTask = null;
        }
        for (SimConnection.End end : List.of(connection.client(), connection.server())) {
            for (Flight flight : end.outbound) {
                flight.task.cancel();
                if (flight.message != null) {
                    drop(end, flight.message, reason);
                }
            }
            end.outbound.clear();
            gates.discard(end, message -> drop(end.peer(), message, reason));
        }
        for (SimConnection.End end : List.of(connection.client(), connection.server())) {
            boolean knowsOfIt = end.isClient() || connection.arrived;
            if (!end.finished() && knowsOfIt) {
                long delay = delay(noticeMaxMs);
                scheduler.after(delay, () -> dispatch(end.localNode(), new Callback(Kind.CLOSED, end, reason, null)));
            }
        }
        retireIfDone(connection);
    }

    // ---------------------------------------------------------------------------------------------- gates

    /**
     * Closes or opens the delivery gate of {@code node}. While closed, every message and callback for the node is
     * held in order; opening releases them, in that order, as scheduler actions due now. Used to pause a process
     * without the network forgetting what reached it.
     */
    public void setDeliveryGate(String node, boolean open) {
        if (open) {
            gates.open(node);
        } else {
            gates.close(node);
        }
    }

    public boolean deliveryGateOpen(String node) {
        return gates.isOpen(node);
    }

    private void dispatch(String node, Callback callback) {
        gates.dispatch(node, callback);
    }

    /** Hands a callback to its node's process, once its gate lets it through. */
    private void run(Callback callback) {
        SimConnection.End end = callback.end();
        switch (callback.kind()) {
            case ACCEPT -> {
                if (end.finished()) {
                    return;
                }
                SimConnection.Handler handler = callback.acceptor().accept(end);
                if (handler != null) {
                    end.handler = handler;
                }
                if (end.handler == null) {
                    throw new IllegalStateException("acceptor of " + end.localNode() + " gave no handler for " + end);
                }
                end.open = true;
                trace("accept " + end);
            }
            case OPEN -> {
                if (end.finished()) {
                    return;
                }
                end.open = true;
                trace("open " + end);
                end.handler.onOpen();
            }
            case MESSAGE -> {
                if (end.notified || end.dead) {
                    drop(end.peer(), callback.payload(), "receiver gone");
                    return;
                }
                delivered++;
                trace("deliver " + end.peer() + " " + callback.payload());
                end.handler.onMessage(callback.payload());
            }
            case PEER_CLOSED, CLOSED -> {
                if (end.finished()) {
                    return;
                }
                end.notified = true;
                end.open = false;
                trace("closed " + end + " " + callback.payload());
                retireIfDone(end.connection());
                end.handler.onClosed((String) callback.payload());
            }
            default -> throw new AssertionError(callback.kind());
        }
    }

    // ---------------------------------------------------------------------------------------------- traffic

    boolean send(SimConnection.End from, Object message) {
        if (!from.open) {
            return false;
        }
        SimConnection.End to = from.peer();
        if (from.connection().broken || to.closedLocally || to.dead) {
            // The sender cannot know yet; the message is lost on the wire.
            trace("send " + from + " " + message);
            drop(from, message, from.connection().broken ? "broken" : "peer closed");
            return true;
        }
        long arrival = enqueue(from, message);
        trace("send " + from + " " + message + " due=" + arrival);
        return true;
    }

    void close(SimConnection.End end) {
        if (end.finished()) {
            return;
        }
        end.closedLocally = true;
        end.open = false;
        SimConnection connection = end.connection();
        trace("close " + end);
        if (!connection.broken) {
            if (end.isClient() && !connection.arrived) {
                // Closed before the request arrived: the server never hears of it.
                connection.connectTask.cancel();
                connection.connectTask = null;
                connection.broken = true;
            } else if (!end.peer().finished()) {
                enqueue(end, null);
            }
        }
        retireIfDone(connection);
    }

    /** Puts a message (or, for null, the close notice) on the wire, FIFO behind what {@code from} sent before. */
    private long enqueue(SimConnection.End from, Object message) {
        long arrival = Math.max(scheduler.nowMs() + delay(delayMaxMs), from.lastArrivalMs);
        from.lastArrivalMs = arrival;
        Flight flight = new Flight(from, message);
        flight.task = scheduler.at(arrival, () -> arrive(flight));
        from.outbound.add(flight);
        return arrival;
    }

    private void arrive(Flight flight) {
        SimConnection.End from = flight.from;
        Flight head = from.outbound.poll();
        if (head != flight) {
            throw new IllegalStateException("FIFO violated on " + from);
        }
        SimConnection.End to = from.peer();
        if (flight.message == null) {
            dispatch(to.localNode(), new Callback(Kind.PEER_CLOSED, to, CLOSED_BY_PEER, null));
        } else {
            dispatch(to.localNode(), new Callback(Kind.MESSAGE, to, flight.message, null));
        }
        retireIfDone(from.connection());
    }

    private void drop(SimConnection.End from, Object message, String why) {
        dropped++;
        trace("drop " + from + " " + message + " (" + why + ")");
    }

    private void retireIfDone(SimConnection connection) {
        if (connection.retired()) {
            connections.remove(connection.id());
        }
    }

    private List<SimConnection> live(Predicate<SimConnection> filter) {
        List<SimConnection> result = new ArrayList<>();
        for (SimConnection connection : connections.values()) {
            if (filter.test(connection)) {
                result.add(connection);
            }
        }
        return result;
    }

    private long delay(long maxMs) {
        return maxMs == delayMinMs ? delayMinMs : random.nextLong(delayMinMs, maxMs + 1);
    }

    // ---------------------------------------------------------------------------------------------- inspection

    /** Messages handed to a handler. */
    public long delivered() {
        return delivered;
    }

    /** Messages lost: in flight or held when their connection broke, or sent into a connection already gone. */
    public long dropped() {
        return dropped;
    }

    private void trace(String line) {
        if (trace != null) {
            trace.accept("t=" + scheduler.nowMs() + " " + line);
        }
    }
}
