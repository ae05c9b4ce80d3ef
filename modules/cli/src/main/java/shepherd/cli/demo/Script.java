package shepherd.cli.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.BooleanSupplier;
import shepherd.broker.BrokerStatus;
import shepherd.coordination.assign.PartitionId;
import shepherd.zookeeper.ZkPaths;

/**
 * The timed events of a demo, spread over its duration with seeded jitter: a consumer joins, one leaves, one is
 * killed, partitions are added, the coordinator is killed, and the next coordinator's ZooKeeper session is expired
 * by the server. Each is written to the timeline as it happens; the monitor shows what the cluster makes of it.
 */
final class Script {
    enum Action {
        JOIN(0.10, "a consumer joins"),
        LEAVE(0.22, "a consumer leaves"),
        KILL(0.34, "a consumer is killed"),
        ADD_PARTITIONS(0.46, "partitions are added"),
        KILL_COORDINATOR(0.58, "the coordinator is killed"),
        EXPIRE_SESSION(0.74, "a ZooKeeper session expires");

        /** Where in the duration the event falls, before jitter. */
        final double at;
        private final String title;

        Action(double at, String title) {
            this.at = at;
            this.title = title;
        }

        String title() {
            return title;
        }
    }

    record Step(long atMs, Action action) {}

    /** Jitter of every event: up to this fraction of the duration either way. */
    static final double JITTER = 0.03;
    private static final Duration COORDINATOR_WAIT = Duration.ofSeconds(20);

    private final Random random;
    private DemoRun.Context ctx; // set by run
    private final List<Step> steps;
    /** The next step to run, on the timeline's clock; null when none is left. */
    private volatile Step next;

    Script(Random random, Duration duration) {
        this.random = random;
        this.steps = plan(random, duration);
    }

    /** The schedule: each action at its place in the duration, shifted by seeded jitter, in order. */
    static List<Step> plan(Random random, Duration duration) {
        long ms = duration.toMillis();
        List<Step> out = new ArrayList<>();
        for (Action a : Action.values()) {
            double jitter = (random.nextDouble() * 2 - 1) * JITTER;
            out.add(new Step(Math.round(ms * (a.at + jitter)), a));
        }
        return out;
    }

    List<Step> steps() {
        return steps;
    }

    /**
     * Runs every step at its time, counted from {@code startMs} on the timeline (when the consumers started), then
     * returns.
     */
    void run(DemoRun.Context ctx, long startMs, BooleanSupplier aborted) throws Exception {
        this.ctx = ctx;
        for (Step step : steps) {
            long at = startMs + step.atMs();
            next = new Step(at, step.action());
            while (ctx.timeline().nowMs() < at) {
                if (aborted.getAsBoolean()) {
                    return;
                }
                Thread.sleep(Math.min(100, at - ctx.timeline().nowMs() + 1)); // waiting for the clock
            }
            if (aborted.getAsBoolean()) {
                return;
            }
            execute(step.action());
        }
        next = null;
    }

    /** The next event and when it falls on the timeline, or null. */
    Step next() {
        return next;
    }

    private void execute(Action action) throws Exception {
        switch (action) {
            // A new member: every group member gets Stop, then Start under the next generation.
            case JOIN -> {
                String group = pick(ctx.groups().names());
                cause("a consumer joined " + group);
                Member m = ctx.groups().join(group);
                say("consumer " + m.id + " joins group " + group);
            }
            // Graceful: Leave carries the final offsets, so its partitions move at once and nothing repeats.
            case LEAVE -> victim().ifPresentOrElse(m -> {
                cause(m.id + " left");
                say("consumer " + m.id + " leaves (shutdown: Leave with its final offsets)");
                run(m::shutdown);
                // shutdown() returns once the coordinator answered the Leave (or could not): say which.
                say("consumer " + m.id + ": " + m.status().termination());
            }, () -> say("no group has two members: nobody leaves"));
            // No goodbye: the coordinator declares it failed after missed pings and waits out its lease.
            case KILL -> victim().ifPresentOrElse(m -> {
                cause(m.id + " killed");
                say("consumer " + m.id + " is killed (halt: no Leave; the coordinator must miss "
                        + (Groups.MAX_PING_RETRIES + 1) + " pings and wait out its lease)");
                run(m::kill);
            }, () -> say("no group has two members: nobody is killed"));
            case ADD_PARTITIONS -> addPartitions();
            case KILL_COORDINATOR -> killCoordinator();
            case EXPIRE_SESSION -> expireSession();
        }
    }

    /** Two more partitions on one broker; the producer writes to them from the next round. */
    private void addPartitions() {
        int broker = 1 + random.nextInt(ctx.brokers());
        int count = ctx.partitionsPerBroker() + 2;
        List<String> added = new ArrayList<>();
        for (int n = ctx.partitionsPerBroker(); n < count; n++) {
            added.add(new PartitionId(broker, n).toString());
        }
        ctx.producer().addPartitions(added);
        cause("partitions added");
        ctx.cluster().setPartitions(ctx.topic(), broker, count);
        say("topic " + ctx.topic() + ": broker " + broker + " now holds " + count + " partitions (new: "
                + String.join(", ", added) + "); both groups rebalance to take them");
    }

    /** Halt, no handover: the next coordinator must wait out every lease before its first Start. */
    private void killCoordinator() {
        int id = ctx.cluster().awaitCoordinator(COORDINATOR_WAIT);
        BrokerStatus s = ctx.cluster().broker(id).status();
        ctx.monitor().coordinatorLost("coordinator broker " + id + " killed", id, s.epoch());
        cause("coordinator killed");
        say("coordinator broker " + id + " (epoch " + s.epoch() + ") is killed (halt: no handover); watch the"
                + " epoch bump and the lease wait of the next one");
        ctx.cluster().haltBroker(id);
    }

    /**
     * The server ends the coordinator's session; the broker hears Expired when it reconnects, stands down and runs
     * for election again with a new session, while another broker takes over under a higher epoch.
     */
    private void expireSession() throws Exception {
        awaitFailoverDone();
        int id = ctx.cluster().awaitCoordinator(COORDINATOR_WAIT);
        BrokerStatus s = ctx.cluster().broker(id).status();
        long session = SessionIds.ephemeralOwner(ctx.cluster().zookeeperConnectString(), ZkPaths.broker(id));
        if (session == 0) {
            say("broker " + id + " has no registration node: no session to expire");
            return;
        }
        ctx.monitor().coordinatorLost("ZooKeeper session of coordinator broker " + id + " expired", id, s.epoch());
        cause("session expired");
        say("ZooKeeper expires session 0x" + Long.toHexString(session) + " of coordinator broker " + id
                + " (epoch " + s.epoch() + ") server-side; it must stand down");
        ctx.zookeeper().expireSession(session);
    }

    private void awaitFailoverDone() throws InterruptedException {
        long deadline = System.nanoTime() + COORDINATOR_WAIT.toNanos();
        while (ctx.monitor().failoverPending() && System.nanoTime() < deadline) {
            Thread.sleep(Monitor.POLL_MS); // polling a condition with a deadline
        }
    }

    /** A live member of a group that keeps at least one other: chosen by the seed. */
    private Optional<Member> victim() {
        List<String> candidates = ctx.groups().names().stream().filter(g -> ctx.groups().alive(g).size() >= 2)
                .toList();
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(pick(ctx.groups().alive(pick(candidates))));
    }

    private <T> T pick(List<T> from) {
        return from.get(random.nextInt(from.size()));
    }

    /** Rebalances and duplicates from now on are put down to {@code what}. */
    private void cause(String what) {
        ctx.monitor().cause(what);
        ctx.log().cause(what);
    }

    private void say(String text) {
        ctx.timeline().add(Timeline.Kind.SCRIPT, text);
    }

    @FunctionalInterface
    private interface Interruptible {
        void run() throws InterruptedException;
    }

    private static void run(Interruptible step) {
        try {
            step.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
