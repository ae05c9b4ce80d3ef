package shepherd.chaos.nemesis;

import eu.rekawek.toxiproxy.model.ToxicDirection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import shepherd.chaos.cluster.ChaosCluster;
import shepherd.chaos.cluster.ChildProcess;
import shepherd.chaos.cluster.Link;
import shepherd.chaos.cluster.Waits;
import shepherd.chaos.history.Entry;

/**
 * The chaos issue's ten nemeses. Durations derive from the run's settings: "beyond the session timeout" holds a
 * fault for twice the session timeout (the server expires the session after one; the 3.9 client may declare it
 * itself after 4/3), "short" is a quarter of it, "beyond the lease" is five leases.
 */
public final class Nemeses {
    /** When, in a rebalance, a coordinator fault is aimed. */
    public enum Phase { IDLE, STOP, START, WRITE }

    /** The latency put on consumer links so that a rebalance phase lasts long enough to be aimed at. */
    static final long PHASE_LATENCY_MS = 80;
    private static final Duration SIGNAL_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration COORDINATOR_TIMEOUT = Duration.ofSeconds(60);

    private Nemeses() {}

    private static Nemesis of(int number, String name, FaultAction action) {
        return new Nemesis() {
            @Override
            public int number() {
                return number;
            }

            @Override
            public String name() {
                return name;
            }

            @Override
            public void run(FaultContext context) throws Exception {
                action.run(context);
            }

            @Override
            public String toString() {
                return number + ":" + name;
            }
        };
    }

    private interface FaultAction {
        void run(FaultContext c) throws Exception;
    }

    /** 1. The coordinator's links to ZooKeeper blackholed beyond the session timeout, aimed at {@code phase}. */
    public static Nemesis coordinatorZkPartition(Phase phase) {
        return of(1, "coordinator-zk-partition(" + phase.name().toLowerCase() + ")", c -> aimed(c, phase, b -> {
            List<Link> links = c.cluster().zkLinksOf(b);
            int epoch = c.cluster().epoch();
            links.forEach(Link::blackhole);
            c.injected("broker " + b + " cut from every ZooKeeper node " + links);
            Waits.hold(beyondSession(c));
            expectReelected(c, b, epoch);
            links.forEach(Link::heal);
            c.healed("broker " + b + " reaches ZooKeeper again");
        }));
    }

    /** 2. SIGSTOP the coordinator beyond the session timeout, then SIGCONT: the paused zombie. */
    public static Nemesis pauseCoordinator() {
        return of(2, "pause-coordinator", c -> {
            int b = c.cluster().awaitCoordinator(COORDINATOR_TIMEOUT);
            ChildProcess p = c.cluster().broker(b);
            int epoch = c.cluster().epoch();
            p.pause();
            c.injected("broker " + b + " (pid " + p.pid() + ") SIGSTOP");
            Waits.hold(beyondSession(c));
            expectReelected(c, b, epoch);
            p.resume();
            c.healed("broker " + b + " SIGCONT");
        });
    }

    /**
     * 3. Back-to-back expiries: the coordinator's session expires; as soon as it has heard so (its
     * {@code handleNewSession} runs) it is cut again and expires a second time; then the next coordinator's does.
     */
    public static Nemesis backToBackExpiries() {
        return of(3, "back-to-back-expiries", c -> {
            int b = c.cluster().awaitCoordinator(COORDINATOR_TIMEOUT);
            ChildProcess p = c.cluster().broker(b);
            int expiries = p.count("session expired");
            List<Link> links = c.cluster().zkLinksOf(b);
            links.forEach(Link::blackhole);
            c.injected("broker " + b + " cut from ZooKeeper (first expiry)");
            Waits.hold(beyondSession(c));
            links.forEach(Link::heal);
            boolean heard = Waits.until(() -> p.count("session expired") > expiries, SIGNAL_TIMEOUT);
            links.forEach(Link::cut);
            c.injected("broker " + b + " cut again " + (heard ? "while handling its expiry" : "(its expiry was not "
                    + "logged within " + SIGNAL_TIMEOUT + ")"));
            Waits.hold(beyondSession(c));
            links.forEach(Link::heal);
            c.healed("broker " + b + " reaches ZooKeeper again");
            int next = c.cluster().awaitCoordinator(COORDINATOR_TIMEOUT);
            List<Link> nextLinks = c.cluster().zkLinksOf(next);
            nextLinks.forEach(Link::blackhole);
            c.injected("broker " + next + " (the next coordinator) cut from ZooKeeper");
            Waits.hold(beyondSession(c));
            nextLinks.forEach(Link::heal);
            c.healed("broker " + next + " reaches ZooKeeper again");
        });
    }

    /** 4. A disconnect shorter than the session timeout: the coordinator pauses and resumes, no reset. */
    public static Nemesis shortDisconnect() {
        return of(4, "short-zk-disconnect", c -> {
            int b = c.cluster().awaitCoordinator(COORDINATOR_TIMEOUT);
            List<Link> links = c.cluster().zkLinksOf(b);
            int epoch = c.cluster().epoch();
            int expiries = c.cluster().broker(b).count("session expired");
            int reconnects = c.cluster().broker(b).count("zookeeper reconnected");
            links.forEach(Link::cut);
            c.injected("broker " + b + " disconnected from ZooKeeper");
            Waits.hold(Duration.ofMillis(shortDisconnectMs(c.cluster().settings().sessionTimeoutMs())));
            links.forEach(Link::heal);
            c.healed("broker " + b + " reconnects");
            boolean resumed = Waits.until(() -> c.cluster().broker(b).count("zookeeper reconnected") > reconnects,
                    SIGNAL_TIMEOUT);
            c.expect(resumed && c.cluster().coordinator().equals(java.util.OptionalInt.of(b))
                            && c.cluster().epoch() == epoch
                            && c.cluster().broker(b).count("session expired") == expiries,
                    "ShortDisconnectResumes", "broker " + b + " should resume as coordinator of epoch " + epoch
                            + " without a session expiry; now coordinator " + c.cluster().coordinator() + ", epoch "
                            + c.cluster().epoch());
        });
    }

    /**
     * How long nemesis 4 refuses: short enough that the ZooKeeper client's own reconnect pacing cannot expire the
     * session. The server may last have heard from the client a third of the timeout before the cut (its idle
     * ping); the attempt after the cut comes at most 1 s (the client's random sleep) plus the broker's capped spin
     * (50 ms, {@code PromptReconnect}) after the last refused one. So a cut of C must keep C + 1,050 ms below two
     * thirds of the timeout: 1/20 of it (100 ms of 2 s, 1,150 ms against 1,333) leaves room for a loaded machine.
     * A quarter, as before, could expire a 2 s session whenever every server refused once inside the cut.
     */
    static long shortDisconnectMs(long sessionTimeoutMs) {
        return sessionTimeoutMs / 20;
    }

    /** 5. One consumer cut from the coordinator, both directions or only coordinator → consumer. */
    public static Nemesis isolateConsumer(boolean bothDirections) {
        return of(5, "isolate-consumer(" + (bothDirections ? "both" : "one-way") + ")", c -> {
            int b = c.cluster().awaitCoordinator(COORDINATOR_TIMEOUT);
            String victim = busyConsumer(c);
            Link link = c.cluster().consumerLink(victim, b);
            long from = System.nanoTime();
            if (bothDirections) {
                link.blackhole();
            } else {
                link.oneWay(ToxicDirection.DOWNSTREAM);
            }
            c.injected("consumer " + victim + " cut from coordinator " + b + (bothDirections ? "" : " (pings lost, "
                    + "answers pass)"));
            Waits.hold(beyondLease(c));
            expectSelfFenced(c, victim, from);
            link.heal();
            c.healed("consumer " + victim + " reaches broker " + b + " again");
        });
    }

    /**
     * Negative control of nemeses 5 and 6's check, {@code ConsumerSelfFences} (CONVENTIONS 13): the check applied to
     * a fetching consumer that nothing is done to. Nothing stops it, so it fetches on through the window, which is
     * the history a consumer without its lease timer leaves when it is cut off (no Stop can reach it), and the check
     * must report it.
     */
    public static Nemesis judgeAConsumerLeftAlone() {
        return of(5, "negative-control(consumer left alone)", c -> {
            String victim = busyConsumer(c);
            long from = System.nanoTime();
            c.injected("nothing done to consumer " + victim + "; judged as if it had been cut off");
            Waits.hold(beyondLease(c));
            expectSelfFenced(c, victim, from);
            c.healed("nothing to heal");
        });
    }

    /** 6. SIGSTOP a consumer beyond its lease: the zombie consumer. */
    public static Nemesis pauseConsumer() {
        return of(6, "pause-consumer", c -> {
            String victim = busyConsumer(c);
            ChildProcess p = c.cluster().consumers().get(victim);
            long from = System.nanoTime();
            p.pause();
            c.injected("consumer " + victim + " SIGSTOP");
            Waits.hold(beyondLease(c));
            p.resume();
            c.healed("consumer " + victim + " SIGCONT");
            // a paused process reports its self-fence once it runs again, stamped at its lease's end
            Waits.until(() -> selfFenced(c, victim, from), SIGNAL_TIMEOUT);
            expectSelfFenced(c, victim, from);
        });
    }

    /** 7. reset_peer or limit_data on the coordinator's ZooKeeper links during its writes: unknown outcomes. */
    public static Nemesis zkLinkResets(boolean limitData) {
        String kind = limitData ? "limit_data" : "reset_peer";
        return of(7, "zk-" + kind.replace('_', '-') + "(write)", c -> aimed(c, Phase.WRITE, b -> {
            List<Link> links = c.cluster().zkLinksOf(b);
            for (Link l : links) {
                if (limitData) {
                    l.limitData(64);
                } else {
                    l.resetPeer(0);
                }
            }
            c.injected(kind + " on broker " + b + "'s ZooKeeper links");
            Waits.hold(Duration.ofMillis(c.cluster().settings().sessionTimeoutMs() / 2));
            links.forEach(Link::heal);
            c.healed("broker " + b + "'s ZooKeeper links are clean");
        }));
    }

    /** 8a. The ZooKeeper leader killed (SIGKILL), restarted after a while. */
    public static Nemesis killZkLeader() {
        return of(8, "kill-zk-leader", c -> {
            int leader = zkLeader(c);
            c.cluster().zk().kill(leader);
            c.injected("ZooKeeper node " + leader + " (the leader) SIGKILL");
            Waits.hold(beyondSession(c));
            c.expect(Waits.until(() -> c.cluster().zk().leader().isPresent(), SIGNAL_TIMEOUT), "ZooKeeperRecovers",
                    "the other two ZooKeeper nodes should elect a leader");
            c.cluster().zk().restart(leader);
            c.cluster().zk().awaitQuorum(Duration.ofSeconds(60));
            c.healed("ZooKeeper node " + leader + " restarted and serving");
        });
    }

    private static int zkLeader(FaultContext c) {
        Waits.require(() -> c.cluster().zk().leader().isPresent(), COORDINATOR_TIMEOUT,
                () -> "no ZooKeeper leader: " + c.cluster().zk().describe());
        return c.cluster().zk().leader().getAsInt();
    }

    /** 8b. One ZooKeeper node (the leader: the harder case) cut from the quorum. */
    public static Nemesis isolateZkNode() {
        return of(8, "isolate-zk-node", c -> {
            int node = zkLeader(c);
            c.cluster().zk().isolate(node);
            c.injected("ZooKeeper node " + node + " (the leader) cut from the other two");
            Waits.hold(beyondSession(c));
            c.cluster().zk().heal(node);
            c.cluster().zk().awaitQuorum(Duration.ofSeconds(60));
            c.healed("ZooKeeper node " + node + " rejoined");
        });
    }

    /** 9a. kill -9 of the coordinator, restarted after a while. */
    public static Nemesis killCoordinator() {
        return of(9, "kill-coordinator", c -> killBroker(c, c.cluster().awaitCoordinator(COORDINATOR_TIMEOUT),
                "the coordinator"));
    }

    /** 9b. kill -9 of a random broker (the run's seed picks it), restarted after a while. */
    public static Nemesis killRandomBroker() {
        return of(9, "kill-random-broker", c -> {
            List<Integer> ids = new ArrayList<>(c.cluster().brokers().keySet());
            killBroker(c, ids.get(c.random().nextInt(ids.size())), "picked at random");
        });
    }

    private static void killBroker(FaultContext c, int b, String why) throws Exception {
        ChildProcess p = c.cluster().broker(b);
        p.kill();
        c.injected("broker " + b + " (" + why + ") SIGKILL");
        Waits.hold(Duration.ofMillis(c.cluster().settings().sessionTimeoutMs()));
        int started = p.count("listening on");
        p.start();
        p.awaitLog("listening on", started + 1, Duration.ofSeconds(60));
        c.healed("broker " + b + " restarted");
    }

    /**
     * 10. Membership churn and partition additions during rebalances: a graceful leave, a crash, a new member,
     * two new partitions and the crashed member's return, each while the rebalance of the one before may run.
     */
    public static Nemesis churn() {
        return of(10, "churn-and-growth", c -> {
            ChaosCluster cluster = c.cluster();
            List<String> live = cluster.liveConsumers();
            String leaver = live.get(live.size() - 1);
            String crasher = live.get(0);
            String joiner = "c" + (cluster.consumers().size() + 1);
            Duration gap = Duration.ofMillis(150);
            c.injected("consumer " + leaver + " leaves");
            CompletableFuture<Void> leaving = CompletableFuture.runAsync(() -> cluster.stopConsumer(leaver));
            Waits.hold(gap);
            cluster.killConsumer(crasher);
            c.observer().died(crasher);
            c.injected("consumer " + crasher + " SIGKILL");
            Waits.hold(gap);
            cluster.growTopic(1, 2);
            c.injected("topic grows by 2 partitions on broker 1");
            cluster.addConsumer(joiner);
            c.injected("consumer " + joiner + " joins");
            cluster.addConsumer(crasher);
            leaving.join();
            cluster.addConsumer(leaver);
            c.healed("consumers " + crasher + " and " + leaver + " are back");
        });
    }

    /**
     * Runs {@code fault} against the coordinator at {@code phase} of a rebalance. For a phase other than IDLE, the
     * consumers' links get {@value #PHASE_LATENCY_MS} ms of latency each way (so Stop and Start each take a few
     * hundred milliseconds), one consumer leaves to cause a rebalance, and the fault starts once the consumers show
     * the phase: the first Stop taken (STOP), the first Start taken (START), or every Stop answered and the answers
     * delivered (WRITE: the coordinator is writing owners, generation and offsets). A phase not seen within
     * {@link #SIGNAL_TIMEOUT} is noted in the report and the fault starts anyway.
     */
    private static void aimed(FaultContext c, Phase phase, Consumer<Integer> fault) throws Exception {
        ChaosCluster cluster = c.cluster();
        int b = cluster.awaitCoordinator(COORDINATOR_TIMEOUT);
        if (phase == Phase.IDLE) {
            fault.accept(b);
            return;
        }
        List<String> live = cluster.liveConsumers();
        String leaver = live.get(live.size() - 1);
        List<Link> slowed = live.stream().map(id -> cluster.consumerLink(id, b)).toList();
        slowed.forEach(l -> l.latency(PHASE_LATENCY_MS));
        int seen = c.observer().fetchEvents().size();
        long fetching = c.observer().fetching().values().stream().flatMap(List::stream)
                .filter(id -> !id.equals(leaver)).distinct().count();
        CompletableFuture<Void> leaving = CompletableFuture.runAsync(() -> cluster.stopConsumer(leaver));
        boolean hit = Waits.until(() -> {
            c.observer().poll(live.stream().map(cluster::historyFile).toList());
            List<Entry> since = c.observer().fetchEvents().stream().skip(seen).toList();
            return switch (phase) {
                case STOP -> since.stream().anyMatch(e -> e instanceof Entry.FetchStopped s
                        && !s.consumer().equals(leaver));
                case START -> since.stream().anyMatch(e -> e instanceof Entry.FetchStarted);
                case WRITE -> since.stream().filter(e -> e instanceof Entry.FetchStopped s
                        && !s.consumer().equals(leaver)).map(e -> ((Entry.FetchStopped) e).consumer()).distinct()
                        .count() >= fetching;
                case IDLE -> true;
            };
        }, SIGNAL_TIMEOUT);
        if (phase == Phase.WRITE && hit) {
            Waits.hold(Duration.ofMillis(PHASE_LATENCY_MS)); // the last StopResponse is on its way back
        }
        if (!hit) {
            c.note("the " + phase.name().toLowerCase() + " phase was not seen within " + SIGNAL_TIMEOUT
                    + "; the fault started anyway");
        }
        try {
            fault.accept(b);
        } finally {
            slowed.forEach(Link::heal);
            leaving.join();
            cluster.addConsumer(leaver);
        }
    }

    /**
     * While cut off (nemeses 1, 2), the coordinator's session expired and another broker was elected with a higher
     * epoch. Waited for, not assumed: the expiry comes after the session timeout plus the client's own timing.
     */
    private static void expectReelected(FaultContext c, int old, int epoch) {
        boolean reelected = Waits.until(() -> c.cluster().epoch() > epoch
                && c.cluster().coordinator().isPresent() && c.cluster().coordinator().getAsInt() != old,
                SIGNAL_TIMEOUT);
        c.expect(reelected, "ExpiredCoordinatorReplaced", "broker " + old + " of epoch " + epoch
                + " should be replaced by another broker with a higher epoch; now coordinator "
                + c.cluster().coordinator() + ", epoch " + c.cluster().epoch());
    }

    private static boolean selfFenced(FaultContext c, String victim, long from) {
        c.observer().poll(List.of(c.cluster().historyFile(victim)));
        return c.observer().fetchEvents().stream().anyMatch(e -> e instanceof Entry.FetchStopped s
                && s.consumer().equals(victim) && s.nanoTime() >= from);
    }

    /**
     * A consumer cut off or paused beyond its lease stopped fetching (nemeses 5, 6). The victim was fetching when it
     * was picked, but a rebalance (a consumer of the previous fault coming back, say) can stop it in the moment
     * before the fault begins: a consumer that fetched nothing from {@code from} on had nothing to fence, and that
     * is noted instead of judged.
     */
    private static void expectSelfFenced(FaultContext c, String victim, long from) {
        boolean fenced = selfFenced(c, victim, from); // polls the victim's history; fetchedSince reads the same events
        if (!fenced && !fetchedSince(c.observer().fetchEvents(), victim, from)) {
            c.note("consumer " + victim + " had stopped fetching (a Stop of a rebalance) before the fault began and"
                    + " started nothing since: nothing to fence");
            return;
        }
        c.expect(fenced, "ConsumerSelfFences", "consumer " + victim
                + " should have stopped fetching once its lease ran out");
    }

    /**
     * Whether {@code victim}, by the fetch events of the history in order, was fetching some partition at
     * {@code from} (its last event of that partition before then a start) or started one at or after it.
     */
    static boolean fetchedSince(List<Entry> fetchEvents, String victim, long from) {
        Map<String, Boolean> fetchingAtFrom = new HashMap<>();
        for (Entry e : fetchEvents) {
            if (e instanceof Entry.FetchStarted s && s.consumer().equals(victim)) {
                if (s.nanoTime() >= from) {
                    return true;
                }
                fetchingAtFrom.put(s.topic() + "/" + s.partition(), true);
            } else if (e instanceof Entry.FetchStopped s && s.consumer().equals(victim) && s.nanoTime() < from) {
                fetchingAtFrom.put(s.topic() + "/" + s.partition(), false);
            }
        }
        return fetchingAtFrom.containsValue(true);
    }

    /** A live, unpaused consumer that is fetching something (the first such, in the run's random order). */
    private static String busyConsumer(FaultContext c) {
        List<String> busy = new ArrayList<>(c.observer().fetching().values().stream().flatMap(List::stream)
                .distinct().filter(id -> c.cluster().consumers().get(id).isAlive()
                        && !c.cluster().consumers().get(id).isPaused()).sorted().toList());
        if (busy.isEmpty()) {
            throw new IllegalStateException("no consumer is fetching anything: " + c.observer().fetching());
        }
        return busy.get(c.random().nextInt(busy.size()));
    }

    private static Duration beyondSession(FaultContext c) {
        return Duration.ofMillis(2L * c.cluster().settings().sessionTimeoutMs());
    }

    private static Duration beyondLease(FaultContext c) {
        return Duration.ofMillis(5L * c.cluster().settings().leaseMs());
    }
}
