package shepherd.cli.demo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import shepherd.broker.BrokerStatus;
import shepherd.cli.local.LocalCluster;
import shepherd.consumer.ConsumerStatus;
import shepherd.coordination.Coordinator.Role;

/**
 * Watches the cluster from outside, as an operator would, every {@link #POLL_MS}: each broker's
 * {@link BrokerStatus} (role, epoch) and each consumer's status. From the changes it writes the timeline (role
 * changes, elections), measures rebalances ({@link GroupTracker}) and failovers, and keeps the latest
 * {@link Snapshot} for the live view. Nothing here edits the broker: every figure is observed, so its resolution is
 * the poll interval.
 */
final class Monitor implements Runnable {
    static final long POLL_MS = 25;

    /** What the view draws: every broker's status (null: unreadable) and every member's status. */
    record Snapshot(Map<Integer, BrokerStatus> brokers, Map<String, List<MemberView>> groups) {
        static final Snapshot EMPTY = new Snapshot(Map.of(), Map.of());
    }

    record MemberView(String id, Member.Fate fate, ConsumerStatus status) {}

    private final LocalCluster cluster;
    private final Groups groups;
    private final Timeline timeline;
    private final Map<String, GroupTracker> trackers = new LinkedHashMap<>();
    private final Map<Integer, String> lastRole = new TreeMap<>();
    private final List<Rebalance> rebalances = new ArrayList<>();
    private final List<Failover> failovers = new ArrayList<>();
    private volatile Snapshot latest = Snapshot.EMPTY;
    private volatile String cause = "initial join";
    private volatile boolean running = true;
    private Thread thread;
    /** A coordinator loss under way, or null. Written by the script, read and cleared by the monitor. */
    private volatile Loss loss;
    /** The successor being timed: monitor thread only. */
    private FailoverClock failoverClock;

    private record Loss(String cause, int broker, int epoch, long atNanos) {}

    Monitor(LocalCluster cluster, Groups groups, Timeline timeline) {
        this.cluster = cluster;
        this.groups = groups;
        this.timeline = timeline;
        groups.names().forEach(g -> trackers.put(g, new GroupTracker(g)));
    }

    void start() {
        thread = new Thread(this, "demo-monitor");
        thread.setDaemon(true);
        thread.start();
    }

    void stop() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.join(2_000);
        }
    }

    /** The scripted event that the next rebalances follow from. */
    void cause(String what) {
        cause = what;
    }

    /** The script is about to take the coordinator away: time the failover from now. */
    void coordinatorLost(String what, int broker, int epoch) {
        loss = new Loss(what, broker, epoch, System.nanoTime());
    }

    Snapshot latest() {
        return latest;
    }

    synchronized List<Rebalance> rebalances() {
        return List.copyOf(rebalances);
    }

    synchronized List<Failover> failovers() {
        return List.copyOf(failovers);
    }

    /** True while a scripted coordinator loss has not yet produced an active successor. */
    boolean failoverPending() {
        return loss != null;
    }

    @Override
    public void run() {
        while (running) {
            try {
                poll();
                Thread.sleep(POLL_MS); // the sampling interval
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                timeline.add(Timeline.Kind.DEMO, "monitor: poll failed: " + e);
            }
        }
    }

    /** One sample: brokers first, then groups, then the snapshot for the view. */
    void poll() {
        long now = System.nanoTime();
        Map<Integer, BrokerStatus> brokers = brokerStatuses();
        brokers.forEach((id, s) -> roleChanged(id, s, now));
        lastRole.keySet().removeIf(id -> {
            if (!brokers.containsKey(id)) {
                timeline.add(Timeline.Kind.CLUSTER, "broker " + id + " is gone");
                return true;
            }
            return false;
        });
        Map<String, List<MemberView>> views = new LinkedHashMap<>();
        for (String g : groups.names()) {
            List<MemberView> members = groups.all(g).stream()
                    .map(m -> new MemberView(m.id, m.fate(), m.status())).toList();
            views.put(g, members);
            trackers.get(g).sample(members, now, cause).ifPresent(this::rebalanced);
        }
        latest = new Snapshot(brokers, views);
    }

    private Map<Integer, BrokerStatus> brokerStatuses() {
        Map<Integer, BrokerStatus> out = new TreeMap<>();
        for (int id : cluster.brokerIds()) {
            try {
                out.put(id, cluster.broker(id).status());
            } catch (IllegalStateException e) {
                // halted between the listing and the read
            }
        }
        return out;
    }

    private void roleChanged(int id, BrokerStatus s, long now) {
        String role = s.role() + (s.epoch() >= 0 && s.role() != Role.FOLLOWER ? " epoch " + s.epoch() : "");
        String before = lastRole.put(id, role);
        if (role.equals(before)) {
            return;
        }
        timeline.add(Timeline.Kind.CLUSTER, "broker " + id + ": " + (before == null ? "" : before + " -> ") + role);
        trackFailover(id, s, now);
    }

    /** Elected (LOADING), waiting out leases (LEASE_WAIT), ACTIVE: the steps of a takeover, timed from the loss. */
    private void trackFailover(int id, BrokerStatus s, long now) {
        Loss l = loss;
        if (l == null || s.epoch() <= l.epoch() || !s.coordinating()) {
            return;
        }
        FailoverClock clock = failoverClock;
        if (clock == null || clock.broker != id || clock.epoch != s.epoch()) {
            clock = new FailoverClock(id, s.epoch(), now);
            failoverClock = clock;
        }
        if (s.role() == Role.LEASE_WAIT && clock.leaseWaitFrom < 0) {
            clock.leaseWaitFrom = now;
        }
        if (s.role() == Role.ACTIVE) {
            long leaseWait = clock.leaseWaitFrom < 0 ? 0 : (now - clock.leaseWaitFrom) / 1_000_000;
            Failover f = new Failover(l.cause(), l.broker(), l.epoch(), id, s.epoch(),
                    (clock.electedAt - l.atNanos()) / 1_000_000, leaseWait, (now - l.atNanos()) / 1_000_000);
            synchronized (this) {
                failovers.add(f);
            }
            loss = null;
            failoverClock = null;
            timeline.add(Timeline.Kind.CLUSTER, "failover " + f.describe());
        }
    }

    private static final class FailoverClock {
        final int broker;
        final int epoch;
        final long electedAt;
        long leaseWaitFrom = -1;

        FailoverClock(int broker, int epoch, long electedAt) {
            this.broker = broker;
            this.epoch = epoch;
            this.electedAt = electedAt;
        }
    }

    private void rebalanced(GroupTracker.Settled settled) {
        Rebalance r = new Rebalance(settled.group(), settled.cause(),
                settled.fromEpoch(), settled.fromGeneration(), settled.epoch(), settled.generation(),
                timeline.msAt(settled.startNanos()), (settled.endNanos() - settled.startNanos()) / 1_000_000);
        synchronized (this) {
            rebalances.add(r);
        }
        timeline.add(Timeline.Kind.REBALANCE, r.describe());
    }
}
