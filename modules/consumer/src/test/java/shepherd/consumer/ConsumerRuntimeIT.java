package shepherd.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.OffsetCommitRequest;
import shepherd.protocol.OffsetCommitResponse;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.Response;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;

/**
 * The consumer runtime on real sockets against a {@link ScriptedCoordinator}: discovery and registration, Start
 * feeding streams from the given offsets, Stop answered only once the queues are cleared and with exactly the
 * offsets taken, stale-epoch commands rejected, commits, Leave on shutdown, lease expiry.
 */
class ConsumerRuntimeIT {
    private static final String TOPIC = "orders";
    private final MemorySource source = new MemorySource();
    private ScriptedCoordinator coordinator;
    private final List<ShepherdConsumer> consumers = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        coordinator = new ScriptedCoordinator(5);
    }

    @AfterEach
    void tearDown() {
        consumers.forEach(ShepherdConsumer::shutdown);
        coordinator.close();
    }

    private ConsumerConfig.Builder config() {
        return ConsumerConfig.builder().bootstrap(coordinator.bootstrap()).groupId("g").consumerId("c1")
                .autoOffsetReset(OffsetReset.SMALLEST).pingIntervalMs(1_000).maxPingRetries(9)
                .source(source, Map.of()).queuedRecordsMax(5).fetchWaitMs(20).shutdownTimeoutMs(3_000);
    }

    private MessageStream registered(ConsumerConfig config) throws Exception {
        ShepherdConsumer c = ShepherdConsumer.create(config);
        consumers.add(c);
        MessageStream stream = c.createMessageStreams(Map.of(TOPIC, 1)).get(TOPIC).get(0);
        c.awaitRegistered(Duration.ofSeconds(10));
        return stream;
    }

    private static PartitionAssignment assign(String partition, long offset) {
        return new PartitionAssignment(TOPIC, partition, offset, 0);
    }

    private static List<String> take(MessageStream stream, int n) throws InterruptedException {
        List<String> out = new ArrayList<>();
        while (out.size() < n) {
            ConsumerRecord r = stream.poll(Duration.ofSeconds(10));
            if (r == null) {
                StringBuilder dump = new StringBuilder();
                Thread.getAllStackTraces().forEach((t, st) -> {
                    if (t.getName().startsWith("shepherd-fetcher")) {
                        dump.append(t).append('\n');
                        for (StackTraceElement e : st) {
                            dump.append("  ").append(e).append('\n');
                        }
                    }
                });
                fail("only " + out + " within 10 s, expected " + n + "; fetchers:\n" + dump);
            }
            out.add(r.valueAsString());
        }
        return out;
    }

    @Test
    void registersWithItsSubscriptionAndFetchesFromTheStartOffsets() throws Exception {
        source.fill(TOPIC, "1-0", 10);
        MessageStream stream = registered(config().build());
        RegisterRequest register = coordinator.receivedOf(RegisterRequest.class).get(0);
        assertEquals("c1", register.consumerId());
        assertEquals(1_000, register.pingIntervalMs());

        Response started = coordinator.send(new StartRequest(5, 1, List.of(assign("1-0", 7))));
        assertEquals(StartResponse.ok(), started);
        assertEquals(List.of("orders/1-0:7", "orders/1-0:8", "orders/1-0:9"), take(stream, 3));

        PingResponse ping = (PingResponse) coordinator.send(new PingRequest(5, 1, (short) 0));
        assertEquals(1, ping.generation());
        assertEquals(List.of(new PartitionOffset(TOPIC, "1-0", 10)), ping.offsets());
    }

    @Test
    void aPartitionWithoutCommittedOffsetStartsWhereTheResetPolicySays() throws Exception {
        source.fill(TOPIC, "1-0", 4);
        source.fill(TOPIC, "2-0", 4);
        ShepherdConsumer c = ShepherdConsumer.create(config().autoOffsetReset(OffsetReset.LARGEST).build());
        consumers.add(c);
        MessageStream stream = c.createMessageStreams(Map.of(TOPIC, 1)).get(TOPIC).get(0);
        c.awaitRegistered(Duration.ofSeconds(10));
        coordinator.send(new StartRequest(5, 1, List.of(assign("1-0", -1))));
        await("the reset offset is reported", () -> c.status().consumedOffsets().get("orders/1-0") != null);
        assertEquals(4L, c.status().consumedOffsets().get("orders/1-0"));
        source.fill(TOPIC, "1-0", 6);
        assertEquals(List.of("orders/1-0:4", "orders/1-0:5"), take(stream, 2));
    }

    @Test
    void stopIsAnsweredWithExactlyTheOffsetsTakenAndNothingIsDeliveredAfterIt() throws Exception {
        source.fill(TOPIC, "1-0", 100);
        source.fill(TOPIC, "2-0", 100);
        MessageStream stream = registered(config().build());
        coordinator.send(new StartRequest(5, 1, List.of(assign("1-0", 0), assign("2-0", 50))));
        List<String> got = take(stream, 4);
        await("the queue refilled", () -> stream.queued() == 5);

        StopResponse stop = (StopResponse) coordinator.send(new StopRequest(5, 1));
        assertEquals(ErrorCode.NONE, stop.errorCode());
        long taken1 = got.stream().filter(s -> s.startsWith("orders/1-0")).count();
        long taken2 = got.stream().filter(s -> s.startsWith("orders/2-0")).count();
        assertEquals(List.of(new PartitionOffset(TOPIC, "1-0", taken1), new PartitionOffset(TOPIC, "2-0", 50 + taken2)),
                stop.offsets());
        assertEquals(0, stream.queued(), "Stop clears the queue before it is answered");
        assertNull(stream.poll(Duration.ofMillis(300)), "no record after Stop");
    }

    @Test
    void commandsOfAnOlderEpochAreRejectedAndChangeNothing() throws Exception {
        source.fill(TOPIC, "1-0", 10);
        ShepherdConsumer c = ShepherdConsumer.create(config().build());
        consumers.add(c);
        MessageStream stream = c.createMessageStreams(Map.of(TOPIC, 1)).get(TOPIC).get(0);
        c.awaitRegistered(Duration.ofSeconds(10));

        // The deposed coordinator (epoch 4) speaks after the consumer saw epoch 5.
        assertEquals(StartResponse.error(ErrorCode.STALE_COORDINATOR_EPOCH),
                coordinator.send(new StartRequest(4, 9, List.of(assign("1-0", 0)))));
        assertEquals(ErrorCode.STALE_COORDINATOR_EPOCH,
                ((PingResponse) coordinator.send(new PingRequest(4, 9, (short) 0))).errorCode());
        assertNull(stream.poll(Duration.ofMillis(300)), "a stale Start starts nothing");
        assertEquals("REGISTERED", c.status().state());

        coordinator.send(new StartRequest(5, 1, List.of(assign("1-0", 0))));
        take(stream, 2);
        assertEquals(ErrorCode.STALE_COORDINATOR_EPOCH,
                ((StopResponse) coordinator.send(new StopRequest(4, 2))).errorCode());
        assertEquals("FETCHING", c.status().state(), "a stale Stop stops nothing");
        assertEquals(List.of(TOPIC + "/1-0"), c.status().assigned());
        assertEquals(1, c.status().generation());
        take(stream, 1);
    }

    @Test
    void theListenerHearsFetchesRejectedCommandsAndStatesInOrderOffTheNetworkLoop() throws Exception {
        source.fill(TOPIC, "1-0", 10);
        List<ConsumerEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
        MessageStream stream = registered(config().listener(e -> {
            events.add(e);
            threads.add(Thread.currentThread().getName());
        }).build());
        coordinator.send(new StartRequest(5, 2, List.of(assign("1-0", 3))));
        take(stream, 2);
        coordinator.send(new PingRequest(4, 2, (short) 0));
        coordinator.send(new StopRequest(5, 2));
        await("the stop is heard", () -> events.stream().anyMatch(e -> e.kind() == ConsumerEvent.Kind.FETCH_STOPPED));

        List<String> story = events.stream().map(e -> switch (e.kind()) {
            case STATE_CHANGED -> e.detail();
            case FETCH_STARTED, FETCH_STOPPED -> e.kind() + " " + e.partition() + " e" + e.epoch() + " g"
                    + e.generation() + " @" + e.offset();
            case COMMAND_REJECTED -> e.kind() + " " + e.detail() + " " + e.error();
        }).toList();
        assertEquals(List.of("DISCOVERING->REGISTERING", "REGISTERING->REGISTERED", "REGISTERED->FETCHING",
                "FETCH_STARTED 1-0 e5 g2 @3", "COMMAND_REJECTED PING STALE_COORDINATOR_EPOCH",
                "FETCHING->STOPPED", "FETCH_STOPPED 1-0 e5 g2 @5"), story);
        for (int i = 1; i < events.size(); i++) {
            assertTrue(events.get(i - 1).nanoTime() <= events.get(i).nanoTime(), events.toString());
        }
        assertTrue(threads.stream().allMatch(t -> t.startsWith("shepherd-consumer-events-")), threads.toString());
    }

    @Test
    void theListenerHasHeardEveryStopWhenShutdownReturns() throws Exception {
        source.fill(TOPIC, "1-0", 10);
        List<String> story = new java.util.concurrent.CopyOnWriteArrayList<>();
        ShepherdConsumer c = ShepherdConsumer.create(config().listener(e -> story.add(e.kind() + " "
                + (e.kind() == ConsumerEvent.Kind.STATE_CHANGED ? e.detail() : e.partition()))).build());
        MessageStream stream = c.createMessageStreams(Map.of(TOPIC, 1)).get(TOPIC).get(0);
        c.awaitRegistered(Duration.ofSeconds(10));
        coordinator.send(new StartRequest(5, 1, List.of(assign("1-0", 0))));
        take(stream, 1);
        c.shutdown(); // returns once the listener has heard the stop

        assertEquals(List.of("STATE_CHANGED DISCOVERING->REGISTERING", "STATE_CHANGED REGISTERING->REGISTERED",
                "STATE_CHANGED REGISTERED->FETCHING", "FETCH_STARTED 1-0", "STATE_CHANGED FETCHING->STOPPED",
                "FETCH_STOPPED 1-0"), story.subList(0, Math.min(story.size(), 6)));
    }

    @Test
    void commitOffsetsSendsTheTakenOffsetsWithEpochAndGeneration() throws Exception {
        source.fill(TOPIC, "1-0", 10);
        ShepherdConsumer c = ShepherdConsumer.create(config().autoCommit(false).build());
        consumers.add(c);
        MessageStream stream = c.createMessageStreams(Map.of(TOPIC, 1)).get(TOPIC).get(0);
        c.awaitRegistered(Duration.ofSeconds(10));
        coordinator.send(new StartRequest(5, 3, List.of(assign("1-0", 2))));
        take(stream, 3);
        c.commitOffsets();
        OffsetCommitRequest commit = coordinator.receivedOf(OffsetCommitRequest.class).get(0);
        assertEquals(5, commit.coordinatorEpoch());
        assertEquals(3, commit.generation());
        assertEquals(List.of(new PartitionOffset(TOPIC, "1-0", 5)), commit.offsets());

        PingResponse ping = (PingResponse) coordinator.send(new PingRequest(5, 3, (short) 0));
        assertNull(ping.offsets(), "without auto-commit, pings carry no offsets");

        coordinator.commitAnswer = r -> OffsetCommitResponse.error(ErrorCode.REBALANCE_IN_PROGRESS);
        CommitFailedException refused = assertThrows(CommitFailedException.class, c::commitOffsets);
        assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, refused.error());
    }

    @Test
    void shutdownStopsFetchingAndLeavesWithTheFinalOffsets() throws Exception {
        source.fill(TOPIC, "1-0", 10);
        ShepherdConsumer c = ShepherdConsumer.create(config().build());
        MessageStream stream = c.createMessageStreams(Map.of(TOPIC, 1)).get(TOPIC).get(0);
        c.awaitRegistered(Duration.ofSeconds(10));
        coordinator.send(new StartRequest(5, 1, List.of(assign("1-0", 0))));
        take(stream, 3);
        c.shutdown();
        await("Leave arrives", () -> !coordinator.receivedOf(LeaveRequest.class).isEmpty());
        LeaveRequest leave = coordinator.receivedOf(LeaveRequest.class).get(0);
        assertEquals(List.of(new PartitionOffset(TOPIC, "1-0", 3)), leave.offsets());
        assertFalse(stream.iterator().hasNext(), "streams end at shutdown");
        assertTrue(stream.ended());
        assertEquals("TERMINATED", c.status().state());
        assertEquals("left the group", c.status().termination());
    }

    @Test
    void aRefusedLeaveIsReportedByShutdown() throws Exception {
        coordinator.leaveAnswer = r -> LeaveResponse.error(ErrorCode.NOT_COORDINATOR);
        ShepherdConsumer c = ShepherdConsumer.create(config().build());
        c.createMessageStreams(Map.of(TOPIC, 1));
        c.awaitRegistered(Duration.ofSeconds(10));
        c.shutdown();
        String termination = c.status().termination();
        assertTrue(termination.startsWith("NOT_COORDINATOR: ") && termination.contains("final offsets may not be"
                + " committed"), termination);
    }

    @Test
    void anUnansweredLeaveEndsShutdownAtTheRequestTimeout() throws Exception {
        coordinator.leaveAnswer = r -> null;
        ShepherdConsumer c = ShepherdConsumer.create(config().requestTimeoutMs(300).build());
        c.createMessageStreams(Map.of(TOPIC, 1));
        c.awaitRegistered(Duration.ofSeconds(10));
        c.shutdown(); // a shutdown timeout (3 s here) would have ended it as "closed" instead
        String termination = c.status().termination();
        assertTrue(termination.startsWith("UNKNOWN: ") && termination.contains("before the Leave was answered"),
                termination);
    }

    @Test
    void aConsumerWhoseLeaseRunsOutStopsFetchingAndRegistersAgain() throws Exception {
        source.fill(TOPIC, "1-0", 10);
        ShepherdConsumer c = ShepherdConsumer.create(config().pingIntervalMs(100).maxPingRetries(1).build());
        consumers.add(c);
        MessageStream stream = c.createMessageStreams(Map.of(TOPIC, 1)).get(TOPIC).get(0);
        c.awaitRegistered(Duration.ofSeconds(10));
        coordinator.send(new StartRequest(5, 1, List.of(assign("1-0", 0))));
        take(stream, 1);
        // No pings: after 200 ms the lease is over.
        await("registered again after the lease ran out", () -> c.status().registrations() >= 2);
        assertTrue(coordinator.receivedOf(RegisterRequest.class).size() >= 2);
    }

    @Test
    void withNoBrokerReachableABoundedWaitReportsEveryBroker() throws Exception {
        ShepherdConsumer c = ShepherdConsumer.create(ConsumerConfig.builder()
                .bootstrap("127.0.0.1:1,127.0.0.1:2").groupId("g").source(source, Map.of()).build());
        consumers.add(c);
        c.createMessageStreams(Map.of(TOPIC, 1));
        AllKnownBrokersNotAvailableException e = assertThrows(AllKnownBrokersNotAvailableException.class,
                () -> c.awaitRegistered(Duration.ofMillis(500)));
        assertEquals(2, e.lastFailures().size(), e.getMessage());
        assertEquals("DISCOVERING", c.status().state(), "it keeps trying");
    }

    @Test
    void aSourceNobodyProvidesIsRefusedByName() {
        InvalidConsumerConfigException e = assertThrows(InvalidConsumerConfigException.class,
                () -> ShepherdConsumer.create(ConsumerConfig.builder().bootstrap("h:1").groupId("g")
                        .source("nosuch", Map.of()).build()));
        assertTrue(e.getMessage().contains("nosuch"), e.getMessage());
    }

    static void await(String what, BooleanSupplier condition) {
        await(what, () -> what, condition);
    }

    static void await(String what, Supplier<String> state, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within 10 s: " + state.get());
            }
            try {
                Thread.sleep(10); // polling interval of a condition with a deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }
}
