package shepherd.testkit;

import java.util.ArrayDeque;
import java.util.Objects;

/**
 * One simulated connection of a {@link SimNetwork}: a client {@link End} and a server {@link End} joined by two FIFO
 * directions. It carries already-decoded message objects, so a simulation can exercise the protocol logic of brokers
 * and consumers without sockets, threads or a wall clock; what the network does to the messages is decided by the
 * {@link SimNetwork} and its seeded {@link java.util.Random}.
 *
 * <p>The state an end reports ({@link End#isOpen()}) changes only when its process is told, through its
 * {@link Handler}; a connection that was cut still looks open to an end until the cut is detected, exactly the
 * window in which lost messages and stale leadership bugs live.
 */
public final class SimConnection {
    /**
     * Callbacks of one end. Every callback runs as a {@link Scheduler} action, never from inside a call the process
     * made, so a handler may freely send, close or connect from any callback.
     */
    public interface Handler {
        /** The connection is established; only a client end gets this (a server end learns through its acceptor). */
        void onOpen();

        /** A message from the peer, in the order the peer sent it. */
        void onMessage(Object message);

        /**
         * The connection is over for this end: {@code "closed by peer"}, {@code "cut"}, {@code "reset"},
         * {@code "refused"} (nobody accepts at the address) or {@code "unreachable"} (partitioned). Called at most
         * once, and never after this end called {@link End#close()} itself.
         */
        void onClosed(String reason);
    }

    /** One side of the connection, as its process sees it. */
    public final class End {
        private final boolean client;
        private final String localNode;
        private final String remoteNode;
        Handler handler;
        /** Set when the process may send: a client after {@code onOpen}, a server when accepted. */
        boolean open;
        /** The process called {@link #close()}. */
        boolean closedLocally;
        /** The process was given {@code onClosed}. */
        boolean notified;
        /** The process crashed ({@link SimNetwork#unregister}); it gets nothing any more. */
        boolean dead;
        /** Messages this end sent that are still on the wire, in arrival order. */
        final ArrayDeque<SimNetwork.Flight> outbound = new ArrayDeque<>();
        /** The arrival time of the last message this end sent: later ones never overtake it. */
        long lastArrivalMs = Long.MIN_VALUE;

        private End(boolean client, String localNode, String remoteNode) {
            this.client = client;
            this.localNode = localNode;
            this.remoteNode = remoteNode;
        }

        /**
         * Sends {@code message} to the peer. False, and nothing sent, when this end is not open (not yet opened, or
         * closed). True does not promise delivery: a cut connection keeps accepting sends until the cut is detected
         * and silently loses them, as a real one does.
         */
        public boolean send(Object message) {
            Objects.requireNonNull(message, "message");
            return network.send(this, message);
        }

        /**
         * Closes gracefully: what either side already sent is still delivered, then the peer gets
         * {@code onClosed("closed by peer")}. This end gets no callback. Closing twice does nothing.
         */
        public void close() {
            network.close(this);
        }

        /** Sets the handler of a server end from inside the acceptor, for a node that prefers that to returning it. */
        public void setHandler(Handler handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
        }

        public long id() {
            return id;
        }

        public String localNode() {
            return localNode;
        }

        public String remoteNode() {
            return remoteNode;
        }

        public boolean isClient() {
            return client;
        }

        /** Whether this end may send, as its process knows it: true from open until it closed or was told. */
        public boolean isOpen() {
            return open;
        }

        public SimConnection connection() {
            return SimConnection.this;
        }

        End peer() {
            return client ? server : SimConnection.this.client;
        }

        /** Nothing more will reach this end's process. */
        boolean finished() {
            return closedLocally || notified || dead;
        }

        @Override
        public String toString() {
            return "c" + id + (client ? "/client " : "/server ") + localNode + "->" + remoteNode;
        }
    }

    private final SimNetwork network;
    private final long id;
    private final End client;
    private final End server;
    /** The pending arrival of the connection request, until it arrives. */
    Scheduler.Task connectTask;
    /** The request reached the server node and was handed to its acceptor (possibly held behind a delivery gate). */
    boolean arrived;
    /** Cut, reset or refused: nothing more travels on it. */
    boolean broken;

    SimConnection(SimNetwork network, long id, String from, String to, Handler clientHandler) {
        this.network = network;
        this.id = id;
        this.client = new End(true, from, to);
        this.server = new End(false, to, from);
        this.client.handler = clientHandler;
    }

    /** Unique per network and increasing in the order of {@link SimNetwork#connect}. */
    public long id() {
        return id;
    }

    public End client() {
        return client;
    }

    public End server() {
        return server;
    }

    public String from() {
        return client.localNode;
    }

    public String to() {
        return server.localNode;
    }

    boolean involves(String node) {
        return client.localNode.equals(node) || server.localNode.equals(node);
    }

    boolean between(String a, String b) {
        return (client.localNode.equals(a) && server.localNode.equals(b))
                || (client.localNode.equals(b) && server.localNode.equals(a));
    }

    /** Nothing more can happen on it: both ends are done and nothing is on the wire. */
    boolean retired() {
        boolean serverDone = server.finished() || (!arrived && connectTask == null);
        return client.finished() && serverDone && client.outbound.isEmpty() && server.outbound.isEmpty();
    }

    @Override
    public String toString() {
        return "c" + id + " " + from() + "->" + to();
    }
}
