package shepherd.testkit;

import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import shepherd.consumer.session.ConsumerSession;
import shepherd.consumer.session.SessionConfig;
import shepherd.coordination.CoordinatorConfig;
import shepherd.coordination.GroupAssignors;
import shepherd.coordination.defect.Defect;
import shepherd.zookeeper.ZkPaths;

/**
 * A whole simulated cluster on one {@link Scheduler}: ZooKeeper, network, brokers running the real coordinator,
 * consumers running the real session core, and the {@link InvariantChecker} fed from all of them — ZooKeeper
 * commits included, so FencedWrites is judged on the server's truth. Everything random comes from one seed.
 */
public final class SimWorld {
    /** How the world is timed; every figure in simulated milliseconds. */
    public record Timing(long zkDelayMaxMs, long netDelayMaxMs, long sessionTimeoutMs, long safetyMarginMs,
            long clockDriftPpm) {}

    private static final int TRACE_LINES = Integer.getInteger("shepherd.sim.traceLines", 400);

    private final long seed;
    private final Random random;
    private final ManualClock clock = new ManualClock(0);
    private final Scheduler scheduler = new Scheduler(clock);
    private final SimZooKeeper zk;
    private final SimNetwork network;
    private final InvariantChecker checker = new InvariantChecker();
    private final Timing timing;
    private final Set<Defect> defects;
    private final Map<Integer, SimBroker> brokers = new TreeMap<>();
    private final Map<Integer, Integer> brokerIncarnations = new HashMap<>();
    private final Map<String, SimConsumer> consumers = new TreeMap<>();
    private final Map<String, Integer> consumerIncarnations = new HashMap<>();
    private final Map<Long, String> sessionOwners = new HashMap<>();
    private final ArrayDeque<String> trace = new ArrayDeque<>();
    /** Half the seeds cut owners writes into several multis, so that a write split by a fault is a case they meet. */
    private final int multiBytesMax;

    public SimWorld(long seed, Timing timing, Set<Defect> defects) {
        this.seed = seed;
        this.random = new Random(seed);
        this.timing = timing;
        this.defects = defects.isEmpty() ? EnumSet.noneOf(Defect.class) : EnumSet.copyOf(defects);
        this.zk = new SimZooKeeper(scheduler, new Random(random.nextLong()), 1, timing.zkDelayMaxMs());
        this.network = new SimNetwork(scheduler, new Random(random.nextLong()), 1, timing.netDelayMaxMs());
        this.multiBytesMax = random.nextBoolean() ? SimBroker.SPLIT_MULTI_BYTES : 900 * 1024;
        zk.admin().create(ZkPaths.TOPICS, null);
        zk.onCommit(this::onCommit);
    }

    public long seed() {
        return seed;
    }

    public Random random() {
        return random;
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    public long nowMs() {
        return scheduler.nowMs();
    }

    public SimZooKeeper zk() {
        return zk;
    }

    public SimNetwork network() {
        return network;
    }

    public InvariantChecker checker() {
        return checker;
    }

    public Timing timing() {
        return timing;
    }

    public Map<Integer, SimBroker> brokers() {
        return brokers;
    }

    public Map<String, SimConsumer> consumers() {
        return consumers;
    }

    /** {@code /brokers/topics/[topic]/[brokerId]} with {@code partitions} partitions. */
    public void addPartitions(String topic, int brokerId, int partitions) {
        String path = ZkPaths.topicBroker(topic, brokerId);
        if (zk.node(path).isPresent()) {
            zk.admin().setData(path, SimZkTree.partitions(partitions));
        } else {
            zk.admin().create(path, SimZkTree.partitions(partitions));
        }
        trace("t=" + nowMs() + " admin: " + topic + " has " + partitions + " partitions on broker " + brokerId);
    }

    public CoordinatorConfig coordinatorConfig(int brokerId) {
        long d = timing.netDelayMaxMs();
        return new CoordinatorConfig(brokerId, timing.sessionTimeoutMs(), timing.clockDriftPpm(), d,
                timing.safetyMarginMs(), 20 * d + 50, 20 * d + 50, 3, 20, 400, 200, 20, GroupAssignors.DEFAULT);
    }

    /** Starts (or restarts, as a new incarnation) broker {@code id}. */
    public SimBroker startBroker(int id) {
        int incarnation = brokerIncarnations.merge(id, 1, Integer::sum);
        SimBroker broker = new SimBroker(scheduler, network, zk, checker, this::trace, coordinatorConfig(id), defects,
                incarnation, multiBytesMax, sessionOwners, clockRate(), random.nextInt(1_000_000));
        brokers.put(id, broker);
        broker.start();
        return broker;
    }

    /** Starts (or restarts, as a new incarnation) a consumer with this configuration. */
    public SimConsumer startConsumer(SessionConfig config) {
        int incarnation = consumerIncarnations.merge(config.consumerId(), 1, Integer::sum);
        SimConsumer consumer = new SimConsumer(scheduler, network, checker, this::trace, new ConsumerSession(), config,
                incarnation, clockRate(), random.nextInt(1_000_000));
        consumers.put(config.consumerId(), consumer);
        consumer.start();
        return consumer;
    }

    /** A clock rate within the drift bound ρ the coordinators are configured with; the extremes half the time. */
    private double clockRate() {
        double rho = timing.clockDriftPpm() / 1e6;
        double u = random.nextInt(4) == 0 ? random.nextDouble() * 2 - 1 : (random.nextBoolean() ? 1 : -1);
        return 1 + rho * u;
    }

    public Optional<SimBroker> activeCoordinator() {
        return brokers.values().stream().filter(b -> !b.process().crashed() && !b.handedOver()
                && b.core().role() == shepherd.coordination.Coordinator.Role.ACTIVE).findFirst();
    }

    public void runUntil(long untilMs) {
        scheduler.runUntil(untilMs);
    }

    public void trace(String line) {
        trace.addLast(line);
        if (trace.size() > TRACE_LINES) {
            trace.removeFirst();
        }
    }

    /** The last lines of the run's trace, for the report of a failing seed. */
    public String traceTail() {
        return String.join("\n", trace);
    }

    // ------------------------------------------------------------------ FencedWrites, on ZooKeeper's truth

    private void onCommit(SimZkCommit commit) {
        boolean election = commit.changes().stream().anyMatch(c -> c.path().equals(ZkPaths.COORDINATOR)
                && c.kind() == SimZkApplied.Kind.CREATED);
        Map<String, Boolean> groupsWritten = new LinkedHashMap<>();
        Map<String, SimZkApplied> ownerChanges = new HashMap<>();
        for (SimZkApplied change : commit.changes()) {
            if (change.path().startsWith(ZkPaths.GROUPS + "/") && change.path().contains("/owners/")) {
                ownerChanges.put(change.path().replace("/owners/", "/offsets/"), change);
            }
        }
        for (SimZkApplied change : commit.changes()) {
            String path = change.path();
            if (path.equals(ZkPaths.EPOCH) && change.kind() == SimZkApplied.Kind.DATA_SET) {
                if (election) {
                    checker.epochBumped(commit.sessionId(), sessionOwners.getOrDefault(commit.sessionId(), "?"),
                            change.newVersion(), commit.atMs());
                } else {
                    groupsWritten.put("(handover)", true);
                }
            } else if (path.startsWith(ZkPaths.GROUPS + "/")) {
                String[] parts = path.split("/");
                groupsWritten.put(parts[3], true);
                if (parts.length == 7 && parts[4].equals("offsets") && change.newData() != null) {
                    Long previous = change.oldData() == null ? null : SimZkTree.offsetOf(path, change.oldData());
                    checker.offsetCommitted(parts[3], parts[5], parts[6], previous,
                            SimZkTree.offsetOf(path, change.newData()),
                            SimZkTree.reporterOf(path, change.newData()).orElse(null),
                            ownerBefore(path, ownerChanges), commit.atMs());
                }
            }
        }
        if (commit.sessionId() != 0) {
            groupsWritten.keySet().forEach(g -> checker.coordinatorWriteCommitted(commit.sessionId(), g, commit.atMs()));
        }
    }

    /** The owner of an offset's partition just before this commit (an owner changed by it counts as before). */
    private String ownerBefore(String offsetPath, Map<String, SimZkApplied> ownerChanges) {
        SimZkApplied changed = ownerChanges.get(offsetPath);
        String ownerPath = offsetPath.replace("/offsets/", "/owners/");
        Object data = changed != null ? changed.oldData() : zk.node(ownerPath).map(SimZkNode::data).orElse(null);
        return SimZkTree.ownerOf(ownerPath, data).map(o -> o.consumerId()).orElse(null);
    }
}
