package shepherd.broker;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import shepherd.coordination.CoordinatorTimer;
import shepherd.coordination.GroupSnapshot;
import shepherd.coordination.Registration;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.protocol.DecodeException;
import shepherd.protocol.Frame;
import shepherd.protocol.FrameCodec;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.zookeeper.ZnodeCodec;
import shepherd.zookeeper.ZnodeFormatException;

/**
 * Runs the coordinator's code before the broker may have to coordinate: a broker usually waits as a standby, and the
 * first takeover of its JVM ran that code for the first time — class loading and the interpreter made a graceful
 * handover to a fresh standby take 0.5 s where a warm one takes a fraction. Each round, on
 * private state and without any I/O, goes through what a coordinator taking over does: the znode codec both ways for
 * a recorded group, a core ({@link CoreRig}) that wins after a clean handover and loads that group, its members
 * registering again, the rebalance, pings, a member leaving and coming back, a handover of its own; every message of
 * it, the core's and the members', through the wire codec; and the event loop's own part of the same steps, on an
 * instance of its own: every kind of timer armed, fired and cancelled ({@link LoopTimers}), every metric recorded.
 * Rounds repeat until the time budget ({@code warmup.ms}) is spent.
 */
final class Warmup {
    static final int MEMBERS = 4;
    static final int PARTITIONS = 64;
    private static final int ROUNDS_MAX = 1_000;

    private Warmup() {}

    /** @return the rounds run within {@code budgetMs} (at least one, unless the budget is 0) */
    static int run(long budgetMs) {
        if (budgetMs <= 0) {
            return 0;
        }
        long deadline = System.nanoTime() + budgetMs * 1_000_000;
        FrameCodec codec = new FrameCodec();
        ScheduledExecutorService timerThread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "shepherd-warmup-timers");
            t.setDaemon(true);
            return t;
        });
        BrokerMetrics metrics = new BrokerMetrics(0);
        GroupSnapshot recorded = recordedGroup();
        int rounds = 0;
        try {
            do {
                round(codec, message -> { }, recorded);
                loopRound(timerThread, metrics);
                rounds++;
            } while (System.nanoTime() - deadline < 0 && rounds < ROUNDS_MAX);
        } finally {
            timerThread.shutdownNow();
        }
        return rounds;
    }

    /** One timer of each kind, as a coordinator's steps arm them. */
    static final CoordinatorTimer[] TIMERS = {
        new CoordinatorTimer.KeepAlive(), new CoordinatorTimer.LeaseWaitOver(),
        new CoordinatorTimer.PingDue(CoreRig.GROUP, CoreRig.consumerId(1)), new CoordinatorTimer.Barrier(CoreRig.GROUP),
        new CoordinatorTimer.RetryRebalance(CoreRig.GROUP), new CoordinatorTimer.ZkRetry(),
        new CoordinatorTimer.HandoverDeadline(), new CoordinatorTimer.HandoverLinger(),
    };

    /**
     * The event loop's part of a takeover, on private instances: each kind of timer armed to fire at once, its
     * firing judged as the loop judges it, armed again for later and cancelled; every metric a takeover records.
     *
     * @return how many firings were current (every timer's, unless the timer thread was slower than the wait)
     */
    static int loopRound(ScheduledExecutorService timerThread, BrokerMetrics metrics) {
        LinkedBlockingQueue<LoopTimers.Due> fired = new LinkedBlockingQueue<>();
        LoopTimers timers = new LoopTimers(timerThread, fired::add);
        for (CoordinatorTimer timer : TIMERS) {
            timers.arm(timer, 0);
        }
        long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        int current = 0;
        for (int taken = 0; taken < TIMERS.length; taken++) {
            LoopTimers.Due due;
            try {
                due = fired.poll(waitUntil - System.nanoTime(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (due == null) {
                break; // the timer thread was slower than the wait
            }
            current += timers.fired(due) ? 1 : 0;
        }
        for (CoordinatorTimer timer : TIMERS) {
            timers.arm(timer, TimeUnit.HOURS.toMillis(1));
        }
        timers.cancel(TIMERS[0]);
        timers.cancelAll();
        for (BrokerMetrics.ZooKeeperOp op : BrokerMetrics.ZooKeeperOp.values()) {
            metrics.zooKeeperAnswered(op, 1);
        }
        for (BrokerMetrics.RebalanceOutcome outcome : BrokerMetrics.RebalanceOutcome.values()) {
            metrics.rebalanceEnded(outcome, 1);
        }
        metrics.coordinatorState(1, true, 1, MEMBERS);
        return current;
    }

    /** One round; {@code seen} is shown every message after the codec (tests); returns the rig, CLOSED by then. */
    static CoreRig round(FrameCodec codec, java.util.function.Consumer<shepherd.protocol.Message> seen) {
        return round(codec, seen, recordedGroup());
    }

    /** One round taking over {@code recorded} ({@link #recordedGroup}: the same every round, so made once per run). */
    private static CoreRig round(FrameCodec codec, java.util.function.Consumer<shepherd.protocol.Message> seen,
                                 GroupSnapshot recorded) {
        CoreRig rig = new CoreRig(PARTITIONS, throughZnodeCodec(recorded), true);
        rig.onMessage = message -> {
            throughWireCodec(codec, message);
            seen.accept(message);
        };
        for (long c = 1; c <= MEMBERS; c++) {
            rig.join(c); // the last one ends the handover grace: the rebalance runs in its settle
        }
        int generation = rig.generation();
        for (long c = 1; c <= MEMBERS; c++) {
            rig.pingDue(c);
            rig.answerPing(c, generation);
        }
        rig.leave(1);
        rig.join(1);
        rig.handOver();
        return rig;
    }

    /**
     * The group a previous coordinator left: its members, their partitions as its own rebalance gave them (so the
     * next coordinator's first run finds the owners current and writes the generation alone, as after a real
     * handover) and committed offsets.
     */
    static GroupSnapshot recordedGroup() {
        Map<String, Registration> registrations = new TreeMap<>();
        CoreRig previous = new CoreRig(PARTITIONS);
        for (long c = 1; c <= MEMBERS; c++) {
            registrations.put(CoreRig.consumerId(c), Registration.of(CoreRig.register(c)));
            previous.join(c);
        }
        Map<TopicPartition, StreamId> owners = new TreeMap<>(previous.core.group(CoreRig.GROUP).orElseThrow().owners());
        Map<TopicPartition, Long> offsets = new TreeMap<>();
        owners.keySet().forEach(tp -> offsets.put(tp, 1_000L + tp.partition().n()));
        return GroupSnapshot.of(1, "range", registrations, owners, offsets);
    }

    /** Encoded and decoded as a write and the next coordinator's loading would: what comes out is what went in. */
    private static GroupSnapshot throughZnodeCodec(GroupSnapshot g) {
        String path = "/warm-up";
        try {
            ZnodeCodec.GroupValue group = ZnodeCodec.decodeGroup(path,
                    ZnodeCodec.encodeGroup(new ZnodeCodec.GroupValue(g.generation(), g.assignor())));
            Map<String, Registration> registrations = new TreeMap<>();
            for (Map.Entry<String, Registration> e : g.registrations().entrySet()) {
                registrations.put(e.getKey(), ZnodeCodec.decodeRegistration(path,
                        ZnodeCodec.encodeRegistration(e.getValue())));
            }
            Map<TopicPartition, StreamId> owners = new TreeMap<>();
            for (Map.Entry<TopicPartition, StreamId> e : g.owners().entrySet()) {
                owners.put(e.getKey(), ZnodeCodec.decodeOwner(path, ZnodeCodec.encodeOwner(
                        new ZnodeCodec.OwnerValue(e.getValue(), g.generation()))).owner());
            }
            Map<TopicPartition, Long> offsets = new TreeMap<>();
            for (Map.Entry<TopicPartition, Long> e : g.offsets().entrySet()) {
                offsets.put(e.getKey(), ZnodeCodec.decodeOffset(path, ZnodeCodec.encodeOffset(e.getValue())));
            }
            return GroupSnapshot.of(group.generation(), group.assignor(), registrations, owners, offsets);
        } catch (ZnodeFormatException e) {
            throw new IllegalStateException("the znode codec does not read back what it wrote: " + e, e);
        }
    }

    private static void throughWireCodec(FrameCodec codec, shepherd.protocol.Message message) {
        Frame frame = message instanceof Request r ? Frame.request(1, r) : Frame.response(1, (Response) message);
        try {
            codec.decodeSized(codec.encode(frame));
        } catch (DecodeException e) {
            throw new IllegalStateException("the wire codec does not read back what it wrote: " + e, e);
        }
    }
}
