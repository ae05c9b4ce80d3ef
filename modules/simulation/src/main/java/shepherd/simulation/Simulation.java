package shepherd.simulation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import shepherd.consumer.session.SessionConfig;
import shepherd.consumer.session.SessionStatus;
import shepherd.coordination.Coordinator;
import shepherd.coordination.GroupView;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.coordination.defect.Defect;
import shepherd.testkit.SimBroker;
import shepherd.testkit.SimConnection;
import shepherd.testkit.SimConsumer;
import shepherd.testkit.SimWorld;
import shepherd.testkit.SimZkTree;
import shepherd.testkit.Violation;
import shepherd.zookeeper.ZkPaths;

/**
 * One seeded run of the whole cluster. The fault phase injects, at random times, every fault DESIGN §5 argues
 * about: ZooKeeper session expiry, process pauses longer than the session timeout, broker crashes and restarts,
 * ZooKeeper disconnects, link cuts and partitions between consumers and brokers, consumer crashes, pauses and
 * membership churn, partitions added, graceful handovers. The checker judges every observation as it happens.
 * In liveness mode everything then heals, and the run fails unless every group converges within a bounded
 * simulated time: one coordinator, every live consumer a member, started in the group's generation, fetching
 * exactly what the owners in ZooKeeper give it, every subscribed partition owned.
 */
public final class Simulation {
    public enum Mode { SAFETY, LIVENESS }

    /**
     * Which faults a run draws, by weight (in the order of {@link #injectFault}'s cases). {@code ALL} is the
     * default; {@code ZOMBIE_COORDINATOR} favours the coordinator losing ZooKeeper while its consumer links stay up
     * and consumers moving to a new coordinator — the history in which fencing matters.
     */
    public enum Faults {
        ALL(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1),
        ZOMBIE_COORDINATOR(1, 0, 0, 6, 3, 3, 0, 0, 1, 0, 0, 1);

        private final int[] weights;
        private final int total;

        Faults(int... weights) {
            this.weights = weights;
            this.total = java.util.Arrays.stream(weights).sum();
        }

        int draw(Random random) {
            int r = random.nextInt(total);
            for (int kind = 0; kind < weights.length; kind++) {
                r -= weights[kind];
                if (r < 0) {
                    return kind;
                }
            }
            throw new IllegalStateException("no fault kind for " + r);
        }
    }

    /** What a run found. {@code failure} is empty when it passed. */
    public record Result(long seed, Mode mode, Optional<String> failure, List<Violation> violations, long simulatedMs,
            long events, long convergedAfterMs) {
        public boolean ok() {
            return failure.isEmpty();
        }
    }

    /** After healing, a group must converge within this much simulated time (generous: several leases, backoffs). */
    static final long CONVERGENCE_BOUND_MS = 20_000;

    private final long seed;
    private final Mode mode;
    private final Random random;
    private final Scenario scenario;
    private final SimWorld world;
    private final Set<Integer> crashedBrokers = new TreeSet<>();
    private final Map<String, SessionConfig> crashedConsumers = new TreeMap<>();
    private final Map<String, SessionConfig> departed = new TreeMap<>();
    private final List<Runnable> heals = new ArrayList<>();

    private final Faults faults;

    private Simulation(long seed, Mode mode, Set<Defect> defects, Faults faults) {
        this.seed = seed;
        this.faults = faults;
        this.mode = mode;
        this.random = new Random(seed);
        this.scenario = Scenario.draw(random);
        this.world = new SimWorld(random.nextLong(), scenario.timing(), defects);
    }

    public static Result run(long seed, Mode mode, Set<Defect> defects) {
        return run(seed, mode, defects, Faults.ALL);
    }

    public static Result run(long seed, Mode mode, Set<Defect> defects, Faults faults) {
        return new Simulation(seed, mode, defects, faults).run();
    }

    private Result run() {
        setUp();
        long faultEnd = scenario.faultPhaseMs();
        long next = 200;
        while (next < faultEnd && world.checker().ok()) {
            world.runUntil(next);
            injectFault();
            next += 20 + random.nextInt(250);
        }
        world.runUntil(faultEnd);
        if (mode == Mode.SAFETY || !world.checker().ok()) {
            world.runUntil(faultEnd + 2_000);
            return result(Optional.empty(), -1);
        }
        heal();
        long healedAt = world.nowMs();
        long deadline = healedAt + CONVERGENCE_BOUND_MS;
        while (world.nowMs() < deadline && world.checker().ok()) {
            world.runUntil(world.nowMs() + 50);
            Optional<String> why = notConverged();
            if (why.isEmpty()) {
                // Stay converged for a while: a converged state must also be stable.
                world.runUntil(world.nowMs() + 500);
                Optional<String> still = notConverged();
                if (still.isEmpty()) {
                    return result(Optional.empty(), world.nowMs() - 500 - healedAt);
                }
            }
        }
        return result(Optional.of("no convergence within " + CONVERGENCE_BOUND_MS + " ms after healing: "
                + notConverged().orElse("?")), -1);
    }

    private Result result(Optional<String> failure, long convergedAfterMs) {
        if (!world.checker().ok()) {
            failure = Optional.of("invariant violated: " + world.checker().first().orElseThrow());
        }
        return new Result(seed, mode, failure, world.checker().violations(), world.nowMs(),
                world.scheduler().executed(), convergedAfterMs);
    }

    /** The run again, with its scenario and the last lines of what happened: the report of a failing seed. */
    public static String describe(long seed, Mode mode, Set<Defect> defects) {
        return describe(seed, mode, defects, Faults.ALL, null);
    }

    /** As {@link #describe(long, Mode, Set)}; also traces the network messages that contain {@code grep}. */
    public static String describe(long seed, Mode mode, Set<Defect> defects, Faults faults, String grep) {
        Simulation s = new Simulation(seed, mode, defects, faults);
        if (grep != null) {
            s.world.network().onTrace(line -> {
                if (line.contains(grep)) {
                    s.world.trace(line);
                }
            });
        }
        Result r = s.run();
        return r + "\nscenario: " + s.scenario + "\n--- trace tail ---\n" + s.world.traceTail();
    }

    private void setUp() {
        for (int[] p : scenario.partitions()) {
            world.addPartitions(scenario.topics().get(p[0]), p[1], p[2]);
        }
        for (int id = 1; id <= scenario.brokers(); id++) {
            world.startBroker(id);
        }
        for (SessionConfig c : scenario.consumers()) {
            long at = random.nextInt(300);
            world.scheduler().after(at, () -> world.startConsumer(c));
        }
    }

    // ------------------------------------------------------------------ faults

    private void injectFault() {
        int kind = faults.draw(random);
        long session = scenario.timing().sessionTimeoutMs();
        long lease = scenario.leaseMaxMs();
        switch (kind) {
            case 0 -> pauseBroker(randomBroker(), 1 + random.nextInt((int) (3 * session)));
            case 1 -> crashBroker(randomBroker());
            case 2 -> expireSession(randomBroker());
            case 3 -> disconnectZk(randomBroker(), 1 + random.nextInt((int) (2 * session)));
            case 4 -> cutConnection();
            case 5 -> partitionConsumer(1 + random.nextInt((int) (2 * lease)));
            case 6 -> pauseConsumer(1 + random.nextInt((int) (3 * lease)));
            case 7 -> crashConsumer();
            case 8 -> churn();
            case 9 -> addPartitions();
            case 10 -> handover();
            default -> restartSomething();
        }
    }

    private Optional<SimBroker> randomBroker() {
        List<SimBroker> live = world.brokers().values().stream()
                .filter(b -> !b.process().crashed() && !b.handedOver()).toList();
        if (live.isEmpty()) {
            return Optional.empty();
        }
        // Favour the coordinator: faults of the coordinator are the interesting ones.
        Optional<SimBroker> active = world.activeCoordinator();
        if (active.isPresent() && random.nextBoolean()) {
            return active;
        }
        return Optional.of(live.get(random.nextInt(live.size())));
    }

    private void pauseBroker(Optional<SimBroker> broker, long forMs) {
        broker.filter(b -> !b.process().paused()).ifPresent(b -> {
            world.trace("t=" + world.nowMs() + " FAULT pause " + b.incarnation() + " for " + forMs + " ms");
            b.pause();
            Runnable resume = () -> {
                if (!b.process().crashed() && b.process().paused()) {
                    b.resume();
                }
            };
            world.scheduler().after(forMs, resume);
            heals.add(resume);
        });
    }

    private void crashBroker(Optional<SimBroker> broker) {
        broker.ifPresent(b -> {
            world.trace("t=" + world.nowMs() + " FAULT crash " + b.incarnation());
            b.crash();
            crashedBrokers.add(b.brokerId());
        });
    }

    private void expireSession(Optional<SimBroker> broker) {
        broker.filter(b -> !b.process().paused()).ifPresent(b -> {
            world.trace("t=" + world.nowMs() + " FAULT expire session of " + b.incarnation());
            world.zk().expire(b.zkClient().sessionId());
        });
    }

    private void disconnectZk(Optional<SimBroker> broker, long forMs) {
        broker.filter(b -> !b.process().paused()).ifPresent(b -> {
            var client = b.zkClient();
            world.trace("t=" + world.nowMs() + " FAULT ZooKeeper link of " + b.incarnation() + " down for " + forMs + " ms");
            client.disconnect();
            Runnable heal = () -> {
                if (client.state() == shepherd.testkit.SimZooKeeper.Client.State.DISCONNECTED && !client.paused()) {
                    client.reconnect();
                }
            };
            world.scheduler().after(forMs, heal);
            heals.add(heal);
        });
    }

    private void cutConnection() {
        List<SimConsumer> live = liveConsumers();
        if (live.isEmpty()) {
            return;
        }
        SimConsumer c = live.get(random.nextInt(live.size()));
        for (int id : world.brokers().keySet()) {
            if (world.network().reachable(c.process().node(), SimBroker.node(id))) {
                world.network().partition(c.process().node(), SimBroker.node(id));
                world.network().heal(c.process().node(), SimBroker.node(id));
            }
        }
        world.trace("t=" + world.nowMs() + " FAULT cut the links of " + c.instance());
    }

    private void partitionConsumer(long forMs) {
        List<SimConsumer> live = liveConsumers();
        Optional<SimBroker> broker = randomBroker();
        if (live.isEmpty() || broker.isEmpty()) {
            return;
        }
        SimConsumer c = live.get(random.nextInt(live.size()));
        String a = c.process().node();
        String b = SimBroker.node(broker.get().brokerId());
        world.trace("t=" + world.nowMs() + " FAULT partition " + a + " from " + b + " for " + forMs + " ms");
        world.network().partition(a, b);
        Runnable heal = () -> world.network().heal(a, b);
        world.scheduler().after(forMs, heal);
        heals.add(heal);
    }

    private void pauseConsumer(long forMs) {
        List<SimConsumer> live = liveConsumers();
        if (live.isEmpty()) {
            return;
        }
        SimConsumer c = live.get(random.nextInt(live.size()));
        if (c.process().paused()) {
            return;
        }
        world.trace("t=" + world.nowMs() + " FAULT pause " + c.instance() + " for " + forMs + " ms");
        c.process().pause();
        Runnable resume = () -> c.process().resume();
        world.scheduler().after(forMs, resume);
        heals.add(resume);
    }

    private void crashConsumer() {
        List<SimConsumer> live = liveConsumers();
        if (live.size() <= 1) {
            return;
        }
        SimConsumer c = live.get(random.nextInt(live.size()));
        world.trace("t=" + world.nowMs() + " FAULT crash " + c.instance());
        c.crash();
        crashedConsumers.put(c.consumerId(), c.config());
    }

    /** Membership churn: a consumer leaves gracefully, or one that left (or crashed) comes back. */
    private void churn() {
        List<SimConsumer> live = liveConsumers();
        if (!departed.isEmpty() && random.nextBoolean()) {
            String id = departed.keySet().iterator().next();
            world.trace("t=" + world.nowMs() + " CHURN " + id + " joins again");
            world.startConsumer(departed.remove(id));
        } else if (live.size() > 1) {
            SimConsumer c = live.get(random.nextInt(live.size()));
            if (!c.process().paused()) {
                world.trace("t=" + world.nowMs() + " CHURN " + c.instance() + " shuts down");
                c.shutdown();
                departed.put(c.consumerId(), c.config());
            }
        }
    }

    private void addPartitions() {
        int[] p = scenario.partitions().get(random.nextInt(scenario.partitions().size()));
        String topic = scenario.topics().get(p[0]);
        String path = ZkPaths.topicBroker(topic, p[1]);
        int count = world.zk().node(path).map(n -> SimZkTree.partitionsOf(path, n.data())).orElse(p[2]);
        if (count < 6) {
            world.addPartitions(topic, p[1], count + 1);
        }
    }

    private void handover() {
        world.activeCoordinator().filter(b -> !b.process().paused()).ifPresent(b -> {
            world.trace("t=" + world.nowMs() + " FAULT graceful handover by " + b.incarnation());
            b.handover();
            crashedBrokers.add(b.brokerId()); // restarted later like a crashed one
        });
    }

    private void restartSomething() {
        if (!crashedBrokers.isEmpty() && random.nextBoolean()) {
            restartBroker(crashedBrokers.iterator().next());
        } else if (!crashedConsumers.isEmpty()) {
            String id = crashedConsumers.keySet().iterator().next();
            world.trace("t=" + world.nowMs() + " RESTART consumer " + id);
            world.startConsumer(crashedConsumers.remove(id));
        }
    }

    private void restartBroker(int id) {
        SimBroker old = world.brokers().get(id);
        if (!old.process().crashed() && !old.handedOver()) {
            return;
        }
        crashedBrokers.remove(id);
        world.trace("t=" + world.nowMs() + " RESTART broker " + id);
        world.startBroker(id);
    }

    private List<SimConsumer> liveConsumers() {
        return world.consumers().values().stream().filter(c -> !c.process().crashed() && !c.state().terminated()
                && !departed.containsKey(c.consumerId())).toList();
    }

    // ------------------------------------------------------------------ healing and convergence

    private void heal() {
        world.trace("t=" + world.nowMs() + " HEAL");
        heals.forEach(Runnable::run);
        heals.clear();
        for (int id : new ArrayList<>(crashedBrokers)) {
            restartBroker(id);
        }
        new ArrayList<>(crashedConsumers.keySet()).forEach(id -> world.startConsumer(crashedConsumers.remove(id)));
        for (SimBroker b : world.brokers().values()) {
            for (SimConsumer c : world.consumers().values()) {
                world.network().heal(c.process().node(), SimBroker.node(b.brokerId()));
            }
        }
    }

    /** Empty when converged; else what is not yet so. */
    private Optional<String> notConverged() {
        List<SimBroker> active = world.brokers().values().stream()
                .filter(b -> !b.process().crashed() && !b.handedOver() && b.core().role() == Coordinator.Role.ACTIVE)
                .toList();
        if (active.size() != 1) {
            return Optional.of(active.size() + " active coordinators");
        }
        Coordinator coordinator = active.get(0).core();
        Map<String, Set<String>> expected = new HashMap<>();
        for (SimConsumer c : liveConsumers()) {
            expected.computeIfAbsent(c.config().groupId(), g -> new TreeSet<>()).add(c.consumerId());
        }
        for (Map.Entry<String, Set<String>> e : expected.entrySet()) {
            Optional<GroupView> view = coordinator.group(e.getKey());
            if (view.isEmpty()) {
                return Optional.of("group " + e.getKey() + " unknown to the coordinator");
            }
            GroupView g = view.get();
            if (!g.members().equals(e.getValue())) {
                return Optional.of("group " + g.group() + " has members " + g.members() + ", live are " + e.getValue());
            }
            if (!g.stable()) {
                return Optional.of("group " + g.group() + " not stable: " + g);
            }
            Optional<String> fetch = fetchingMatchesOwners(g);
            if (fetch.isPresent()) {
                return fetch;
            }
        }
        return Optional.empty();
    }

    private Optional<String> fetchingMatchesOwners(GroupView g) {
        Set<String> subscribed = new HashSet<>();
        for (SimConsumer c : liveConsumers()) {
            if (!c.config().groupId().equals(g.group())) {
                continue;
            }
            if (c.state().status() != SessionStatus.FETCHING || c.state().generation() != g.generation()) {
                return Optional.of(c.instance() + " is " + c.state().status() + " in generation "
                        + c.state().generation() + ", group generation " + g.generation());
            }
            Set<String> owned = new TreeSet<>();
            for (Map.Entry<TopicPartition, StreamId> o : g.owners().entrySet()) {
                if (o.getValue().consumerId().equals(c.consumerId())) {
                    owned.add(o.getKey().topic() + "/" + o.getKey().partition());
                }
            }
            if (!owned.equals(new TreeSet<>(c.fetchingNow()))) {
                return Optional.of(c.instance() + " fetches " + c.fetchingNow() + " but owns " + owned);
            }
            subscribed.addAll(subscribedPartitions(c.config()));
        }
        Set<String> ownedAll = new TreeSet<>();
        g.owners().keySet().forEach(tp -> ownedAll.add(tp.topic() + "/" + tp.partition()));
        if (!ownedAll.equals(subscribed)) {
            return Optional.of("group " + g.group() + " owns " + ownedAll + ", subscribed are " + subscribed);
        }
        return Optional.empty();
    }

    private Set<String> subscribedPartitions(SessionConfig c) {
        Set<String> out = new TreeSet<>();
        for (String topic : world.zk().children(ZkPaths.TOPICS)) {
            boolean wanted = c.subscription() instanceof shepherd.protocol.StaticSubscription s
                    ? s.topics().stream().anyMatch(t -> t.topic().equals(topic))
                    : java.util.regex.Pattern.matches(((shepherd.protocol.WildcardSubscription) c.subscription()).pattern(), topic);
            if (!wanted) {
                continue;
            }
            for (String broker : world.zk().children(ZkPaths.topic(topic))) {
                String path = ZkPaths.topic(topic) + "/" + broker;
                int n = SimZkTree.partitionsOf(path, world.zk().node(path).orElseThrow().data());
                for (int i = 0; i < n; i++) {
                    out.add(topic + "/" + broker + "-" + i);
                }
            }
        }
        return out;
    }

}
