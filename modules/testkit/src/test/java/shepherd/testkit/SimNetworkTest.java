package shepherd.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * The guarantees the simulation's protocol checks stand on: FIFO, the delay bound D, loss only where a fault says so,
 * every end told exactly once, and runs that replay from their seed.
 */
class SimNetworkTest {
    private static final long MIN = 5;
    private static final long MAX = 50;

    /** A message that knows when and in which order it was sent. */
    record Stamp(String from, int seq, long sentMs) { }

    /** Records what a handler was told, with the time it was told. */
    static final class Recorder implements SimConnection.Handler {
        final Scheduler scheduler;
        final List<String> events = new ArrayList<>();
        final List<Object> messages = new ArrayList<>();
        final List<Long> messageTimes = new ArrayList<>();
        long openedAt = -1;
        long closedAt = -1;
        String closeReason;
        SimConnection.End end;

        Recorder(Scheduler scheduler) {
            this.scheduler = scheduler;
        }

        @Override
        public void onOpen() {
            assertEquals(-1, openedAt, "opened twice");
            openedAt = scheduler.nowMs();
            events.add("open");
        }

        @Override
        public void onMessage(Object message) {
            messages.add(message);
            messageTimes.add(scheduler.nowMs());
            events.add("msg " + message);
        }

        @Override
        public void onClosed(String reason) {
            assertEquals(-1, closedAt, "closed twice");
            closedAt = scheduler.nowMs();
            closeReason = reason;
            events.add("closed " + reason);
        }
    }

    /** A simulated world: one scheduler, one network, and a record of every server end accepted. */
    static final class World {
        final Scheduler scheduler = new Scheduler(new ManualClock(0));
        final SimNetwork net;
        final Map<String, List<Recorder>> accepted = new HashMap<>();
        final List<String> trace = new ArrayList<>();

        World(long seed, long min, long max) {
            net = new SimNetwork(scheduler, new Random(seed), min, max);
            net.onTrace(trace::add);
        }

        void server(String node) {
            net.register(node, end -> {
                Recorder recorder = new Recorder(scheduler);
                recorder.end = end;
                accepted.computeIfAbsent(node, n -> new ArrayList<>()).add(recorder);
                return recorder;
            });
        }

        Recorder serverSide(String node, int index) {
            return accepted.get(node).get(index);
        }

        void runAll() {
            while (scheduler.runNext()) {
                // drain
            }
        }

        /** Connects and runs until established; returns the client recorder with its end. */
        Recorder open(String from, String to) {
            Recorder client = new Recorder(scheduler);
            SimConnection connection = net.connect(from, to, client);
            client.end = connection.client();
            scheduler.runUntil(scheduler.nowMs() + net.delayMaxMs());
            assertTrue(client.end.isOpen(), "connection " + connection + " did not open");
            return client;
        }
    }

    // ------------------------------------------------------------------------------------------ ordering and delay

    /** What both ends of one connection received. */
    record Traffic(Recorder client, Recorder server) { }

    /** Both ends send at random moments; returns both sides after everything was delivered. */
    private static Traffic trafficBothWays(long seed, long min, long max, int messages) {
        World world = new World(seed, min, max);
        world.server("broker-1");
        Recorder client = world.open("consumer-a", "broker-1");
        Recorder server = world.serverSide("broker-1", 0);
        Random pace = new Random(~seed);
        long t = world.scheduler.nowMs();
        for (int i = 0; i < messages; i++) {
            t += pace.nextInt(3) == 0 ? 0 : pace.nextLong(max + 1);
            int seq = i;
            world.scheduler.at(t, () -> {
                long now = world.scheduler.nowMs();
                assertTrue(client.end.send(new Stamp("client", seq, now)));
                assertTrue(server.end.send(new Stamp("server", seq, now)));
            });
        }
        world.runAll();
        assertEquals(messages, client.messages.size());
        assertEquals(messages, server.messages.size());
        assertEquals(2L * messages, world.net.delivered());
        assertEquals(0, world.net.dropped());
        return new Traffic(client, server);
    }

    @Property(tries = 100)
    void fifoPerDirectionUnderRandomDelays(@ForAll long seed, @ForAll @LongRange(max = 20) long min,
            @ForAll @LongRange(max = 200) long spread) {
        Traffic traffic = trafficBothWays(seed, min, min + spread, 60);
        for (Recorder side : List.of(traffic.client(), traffic.server())) {
            for (int i = 0; i < side.messages.size(); i++) {
                assertEquals(i, ((Stamp) side.messages.get(i)).seq(), "out of order at " + i);
            }
        }
    }

    @Property(tries = 100)
    void deliveryDelayStaysWithinMinAndDelayMax(@ForAll long seed, @ForAll @LongRange(max = 20) long min,
            @ForAll @LongRange(max = 200) long spread) {
        long max = min + spread;
        Traffic traffic = trafficBothWays(seed, min, max, 60);
        for (Recorder side : List.of(traffic.client(), traffic.server())) {
            for (int i = 0; i < side.messages.size(); i++) {
                long delay = side.messageTimes.get(i) - ((Stamp) side.messages.get(i)).sentMs();
                assertTrue(delay >= min && delay <= max, "delay " + delay + " outside [" + min + ", " + max + "]");
            }
        }
    }

    // ------------------------------------------------------------------------------------------ faults

    @Test
    void cutDropsInFlightMessagesAndBothEndsAreToldWithinDetectionDelay() {
        World world = new World(7, MIN, MAX);
        world.server("broker-1");
        Recorder client = world.open("consumer-a", "broker-1");
        Recorder server = world.serverSide("broker-1", 0);
        for (int i = 0; i < 5; i++) {
            client.end.send("c" + i);
            server.end.send("s" + i);
        }
        long cutAt = world.scheduler.nowMs();
        assertTrue(world.net.cut(client.end.id()));
        assertFalse(world.net.cut(client.end.id()), "a broken connection cannot be cut again");
        // Until the cut is detected the ends still believe in it; what they send is lost.
        assertTrue(client.end.isOpen());
        assertTrue(client.end.send("lost"));
        world.runAll();

        assertTrue(client.messages.isEmpty());
        assertTrue(server.messages.isEmpty());
        assertEquals(0, world.net.delivered());
        assertEquals(11, world.net.dropped());
        for (Recorder side : List.of(client, server)) {
            assertEquals("cut", side.closeReason);
            long detection = side.closedAt - cutAt;
            assertTrue(detection >= MIN && detection <= 4 * MAX, "detected after " + detection);
            assertFalse(side.end.isOpen());
            assertFalse(side.end.send("too late"), "sending on a closed end is refused");
        }
        assertEquals(0, world.net.openConnections());
        assertEquals(null, world.net.connection(client.end.id()));
    }

    @Test
    void resetTellsBothEndsAfterOneNormalDelay() {
        World world = new World(8, MIN, MAX);
        world.server("broker-1");
        Recorder client = world.open("consumer-a", "broker-1");
        Recorder server = world.serverSide("broker-1", 0);
        client.end.send("lost");
        long resetAt = world.scheduler.nowMs();
        assertTrue(world.net.reset(client.end.id()));
        world.runAll();
        assertEquals(1, world.net.dropped());
        for (Recorder side : List.of(client, server)) {
            assertEquals("reset", side.closeReason);
            assertTrue(side.closedAt - resetAt >= MIN && side.closedAt - resetAt <= MAX);
        }
    }

    @Test
    void gracefulCloseDeliversWhatWasSentFirstThenTellsOnlyThePeer() {
        World world = new World(3, MIN, MAX);
        world.server("broker-1");
        Recorder client = world.open("consumer-a", "broker-1");
        Recorder server = world.serverSide("broker-1", 0);
        for (int i = 0; i < 3; i++) {
            client.end.send("c" + i);
        }
        server.end.send("s0");
        server.end.send("s1");
        client.end.close();
        assertFalse(client.end.isOpen());
        assertFalse(client.end.send("after close"));
        // The server has not heard of the close yet: what it sends now has nowhere to go.
        assertTrue(server.end.send("into the void"));
        world.runAll();

        assertEquals(List.of("msg c0", "msg c1", "msg c2", "closed closed by peer"), server.events);
        assertEquals(List.of("open", "msg s0", "msg s1"), client.events, "the closing end gets no callback");
        assertEquals(5, world.net.delivered());
        assertEquals(1, world.net.dropped());
        assertEquals(0, world.net.openConnections());
    }

    @Test
    void partitionCutsExistingConnectionsAndRefusesNewConnectsUntilHeal() {
        World world = new World(11, MIN, MAX);
        world.server("broker-1");
        world.server("broker-2");
        Recorder existing = world.open("consumer-a", "broker-1");
        Recorder other = world.open("consumer-a", "broker-2");
        world.net.partition("broker-1", "consumer-a");
        assertFalse(world.net.reachable("consumer-a", "broker-1"));

        Recorder refused = new Recorder(world.scheduler);
        long connectAt = world.scheduler.nowMs();
        world.net.connect("consumer-a", "broker-1", refused);
        world.runAll();
        assertEquals("cut", existing.closeReason);
        assertEquals("cut", world.serverSide("broker-1", 0).closeReason);
        assertEquals(List.of("closed unreachable"), refused.events);
        assertTrue(refused.closedAt - connectAt >= MIN && refused.closedAt - connectAt <= MAX);
        assertEquals(1, world.accepted.get("broker-1").size(), "the acceptor never saw the refused connect");
        assertTrue(other.end.isOpen(), "other pairs are untouched");

        world.net.heal("consumer-a", "broker-1");
        Recorder healed = world.open("consumer-a", "broker-1");
        assertTrue(healed.end.isOpen());
        assertEquals(2, world.net.openConnections());
    }

    @Test
    void isolateCutsANodeFromEveryoneUntilRejoin() {
        World world = new World(12, MIN, MAX);
        world.server("broker-1");
        world.server("broker-2");
        Recorder a = world.open("consumer-a", "broker-1");
        Recorder b = world.open("consumer-b", "broker-1");
        Recorder c = world.open("consumer-b", "broker-2");
        world.net.isolate("broker-1");
        Recorder refused = new Recorder(world.scheduler);
        world.net.connect("consumer-c", "broker-1", refused);
        world.runAll();
        assertEquals("cut", a.closeReason);
        assertEquals("cut", b.closeReason);
        assertTrue(c.end.isOpen());
        assertEquals("unreachable", refused.closeReason);
        world.net.rejoin("broker-1");
        assertTrue(world.open("consumer-c", "broker-1").end.isOpen());
    }

    @Test
    void connectToUnknownNodeIsRefusedAfterOneDelay() {
        World world = new World(5, MIN, MAX);
        Recorder client = new Recorder(world.scheduler);
        SimConnection connection = world.net.connect("consumer-a", "nobody", client);
        assertFalse(connection.client().isOpen());
        assertFalse(connection.client().send("early"), "nothing can be sent before open");
        world.runAll();
        assertEquals(List.of("closed refused"), client.events);
        assertTrue(client.closedAt >= MIN && client.closedAt <= MAX);
        assertEquals(0, world.net.openConnections());
    }

    @Test
    void connectionIdsAreUniqueAndIncreasing() {
        World world = new World(6, MIN, MAX);
        world.server("broker-1");
        long previous = 0;
        for (int i = 0; i < 5; i++) {
            long id = world.net.connect("consumer-a", "broker-1", new Recorder(world.scheduler)).id();
            assertTrue(id > previous);
            previous = id;
        }
    }

    @Test
    void unregisterResetsEveryConnectionOfTheCrashedNode() {
        World world = new World(13, MIN, MAX);
        world.server("broker-1");
        world.server("broker-2");
        Recorder a = world.open("consumer-a", "broker-1");
        Recorder b = world.open("consumer-b", "broker-1");
        Recorder c = world.open("consumer-b", "broker-2");
        Recorder crashedSide = world.serverSide("broker-1", 0);
        a.end.send("in flight");
        long crashAt = world.scheduler.nowMs();
        world.net.unregister("broker-1");
        assertFalse(crashedSide.end.isOpen());
        world.runAll();

        for (Recorder peer : List.of(a, b)) {
            assertEquals("reset", peer.closeReason);
            assertTrue(peer.closedAt - crashAt <= MAX);
        }
        assertTrue(crashedSide.events.isEmpty(), "a crashed process hears nothing");
        assertEquals(1, world.net.dropped());
        assertTrue(c.end.isOpen());
        assertEquals(1, world.net.openConnections());
        Recorder refused = new Recorder(world.scheduler);
        world.net.connect("consumer-a", "broker-1", refused);
        world.runAll();
        assertEquals("refused", refused.closeReason);
    }

    // ------------------------------------------------------------------------------------------ delivery gate

    @Test
    void deliveryGateHoldsMessagesAndCallbacksAndReleasesThemInOrder() {
        World world = new World(17, MIN, MAX);
        world.server("broker-1");
        Recorder client = world.open("consumer-a", "broker-1");
        Recorder server = world.serverSide("broker-1", 0);
        world.net.setDeliveryGate("broker-1", false);
        for (int i = 0; i < 5; i++) {
            client.end.send("m" + i);
        }
        client.end.close();
        world.scheduler.runUntil(1_000);
        assertTrue(server.events.isEmpty(), "a paused process is told nothing");
        assertEquals(0, world.net.delivered());

        world.net.setDeliveryGate("broker-1", true);
        world.runAll();
        assertEquals(List.of("msg m0", "msg m1", "msg m2", "msg m3", "msg m4", "closed closed by peer"),
                server.events);
        assertEquals(1_000, world.scheduler.nowMs(), "released at the moment the gate opened");
    }

    @Test
    void deliveryGateHoldsTheAcceptOfANewConnection() {
        World world = new World(18, MIN, MAX);
        world.server("broker-1");
        world.net.setDeliveryGate("broker-1", false);
        Recorder client = new Recorder(world.scheduler);
        client.end = world.net.connect("consumer-a", "broker-1", client).client();
        world.scheduler.runUntil(500);
        assertTrue(client.end.isOpen(), "the client is not paused");
        client.end.send("hello");
        world.scheduler.runUntil(1_000);
        assertEquals(null, world.accepted.get("broker-1"));
        world.net.setDeliveryGate("broker-1", true);
        world.runAll();
        assertEquals(List.of("msg hello"), world.serverSide("broker-1", 0).events);
    }

    @Test
    void cutDropsMessagesHeldBehindAClosedGate() {
        World world = new World(19, MIN, MAX);
        world.server("broker-1");
        Recorder client = world.open("consumer-a", "broker-1");
        Recorder server = world.serverSide("broker-1", 0);
        world.net.setDeliveryGate("broker-1", false);
        client.end.send("held 1");
        client.end.send("held 2");
        world.scheduler.runUntil(world.scheduler.nowMs() + MAX);
        world.net.cut(client.end.id());
        world.scheduler.runUntil(world.scheduler.nowMs() + 10 * MAX);
        world.net.setDeliveryGate("broker-1", true);
        world.runAll();
        assertEquals(List.of("closed cut"), server.events);
        assertEquals(2, world.net.dropped());
        assertEquals(0, world.net.delivered());
    }

    // ------------------------------------------------------------------------------------------ determinism

    /** Random traffic, faults and pauses, all drawn from {@code seed}; returns the trace. */
    private static List<String> chaos(long seed) {
        World world = new World(seed, 1, 30);
        Random script = new Random(seed * 31 + 1);
        List<String> brokers = List.of("broker-1", "broker-2", "broker-3");
        List<String> consumers = List.of("consumer-a", "consumer-b");
        brokers.forEach(world::server);
        List<Recorder> clients = new ArrayList<>();
        Map<Long, List<Integer>> receivedByConnection = new HashMap<>();
        for (int step = 0; step < 300; step++) {
            long at = step * 10L;
            int action = script.nextInt(20);
            String broker = brokers.get(script.nextInt(brokers.size()));
            String consumer = consumers.get(script.nextInt(consumers.size()));
            int seq = step;
            world.scheduler.at(at, () -> {
                switch (action) {
                    case 0, 1 -> {
                        Recorder recorder = new Recorder(world.scheduler);
                        recorder.end = world.net.connect(consumer, broker, recorder).client();
                        clients.add(recorder);
                    }
                    case 2 -> world.net.partition(consumer, broker);
                    case 3 -> world.net.heal(consumer, broker);
                    case 4 -> world.net.setDeliveryGate(broker, script.nextBoolean());
                    case 5 -> {
                        if (!clients.isEmpty()) {
                            world.net.cut(clients.get(script.nextInt(clients.size())).end.id());
                        }
                    }
                    case 6 -> {
                        if (!clients.isEmpty()) {
                            clients.get(script.nextInt(clients.size())).end.close();
                        }
                    }
                    default -> {
                        for (Recorder client : clients) {
                            client.end.send(seq);
                        }
                    }
                }
            });
        }
        world.runAll();
        brokers.forEach(broker -> world.net.setDeliveryGate(broker, true));
        world.runAll();
        long sent = world.trace.stream().filter(line -> line.split(" ")[1].equals("send")).count();
        assertEquals(sent, world.net.delivered() + world.net.dropped(), "every message sent is delivered or dropped");
        for (List<Recorder> servers : world.accepted.values()) {
            for (Recorder server : servers) {
                List<Integer> seqs = receivedByConnection.computeIfAbsent(server.end.id(), id -> new ArrayList<>());
                server.messages.forEach(m -> seqs.add((Integer) m));
            }
        }
        receivedByConnection.forEach((id, seqs) -> {
            for (int i = 1; i < seqs.size(); i++) {
                assertTrue(seqs.get(i - 1) < seqs.get(i), "connection " + id + " reordered: " + seqs);
            }
        });
        for (Recorder client : clients) {
            assertFalse(client.end.isOpen() && client.closedAt >= 0);
        }
        world.trace.add("delivered=" + world.net.delivered() + " dropped=" + world.net.dropped());
        return world.trace;
    }

    @Test
    void sameSeedGivesTheSameTrace() {
        for (long seed = 1; seed <= 5; seed++) {
            List<String> first = chaos(seed);
            assertTrue(first.size() > 100, "the scenario exercises the network");
            assertEquals(first, chaos(seed), "seed " + seed + " did not replay");
        }
        assertNotEquals(chaos(1), chaos(2));
    }
}
