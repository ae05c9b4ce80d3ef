package shepherd.chaos.run;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import shepherd.chaos.cluster.ChaosCluster;
import shepherd.chaos.cluster.ChildProcess;
import shepherd.chaos.cluster.Waits;
import shepherd.chaos.cluster.ZkTxnHistory;
import shepherd.chaos.history.Checkers;
import shepherd.chaos.history.Entry;
import shepherd.chaos.history.History;
import shepherd.chaos.history.HistoryCodec;
import shepherd.chaos.history.Violation;
import shepherd.chaos.nemesis.FaultContext;
import shepherd.chaos.nemesis.Nemesis;

/**
 * One chaos run: start the cluster, let the group settle, produce records, apply nemeses one after another (each
 * healed, then the group given {@link #CONVERGENCE_BOUND} to converge), heal everything, wait until every record was
 * delivered, then merge the histories (consumer files, the test's own entries, ZooKeeper's transaction log),
 * run every checker and write {@code history.jsonl} and {@code report.md} into the run's directory.
 */
public final class ChaosRun implements FaultContext, AutoCloseable {
    /** After a heal, the group must be fetched again by exactly its owners within this (the Convergence bound). */
    public static final Duration CONVERGENCE_BOUND = Duration.ofSeconds(60);
    private static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(60);

    private final String name;
    private final long seed;
    private final Random random;
    private final ChaosCluster cluster;
    private final Observer observer = new Observer();
    private final long startWallMs;
    private final long startNanos;
    private final List<Report.Step> steps = new ArrayList<>();
    private final List<Violation> runViolations = new ArrayList<>();
    private Nemesis current;

    private ChaosRun(String name, long seed, ChaosCluster cluster, long startWallMs, long startNanos) {
        this.name = name;
        this.seed = seed;
        this.random = new Random(seed);
        this.cluster = cluster;
        this.startWallMs = startWallMs;
        this.startNanos = startNanos;
    }

    /** Starts the cluster in {@code dir} and waits until the group first converges, then starts the workload. */
    public static ChaosRun start(String name, Path dir, ChaosCluster.Settings settings, long seed)
            throws IOException, InterruptedException {
        long wall = System.currentTimeMillis();
        long nanos = System.nanoTime();
        ChaosCluster cluster = ChaosCluster.start(dir, settings, new History());
        ChaosRun run = new ChaosRun(name, seed, cluster, wall, nanos);
        try {
            Waits.require(run::converged, CONVERGENCE_BOUND, () -> "the group never settled: " + run.state());
            cluster.startWorkload();
            return run;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Applies one nemesis, then waits for convergence and records how long it took after the heal. */
    public void apply(Nemesis nemesis) throws Exception {
        current = nemesis;
        long before = System.nanoTime();
        nemesis.run(this);
        long healed = System.nanoTime();
        boolean converged = Waits.until(this::converged, CONVERGENCE_BOUND);
        long after = System.nanoTime();
        steps.add(new Report.Step(nemesis.toString(), before, healed, converged ? after - healed : -1));
        if (!converged) {
            runViolations.add(new Violation("Convergence", "after " + nemesis + " the group did not converge within "
                    + CONVERGENCE_BOUND + ": " + state()));
        }
        current = null;
    }

    /**
     * The group has converged: a coordinator is elected, every running consumer is a registered member (one that
     * was cut off or paused has rejoined), and every partition of the topic has an owner in ZooKeeper that is a
     * running, unpaused consumer, which alone fetches it.
     */
    boolean converged() {
        try {
            observer.poll(historyFiles());
            if (cluster.coordinator().isEmpty()) {
                return false;
            }
            List<String> running = cluster.consumers().entrySet().stream().filter(e -> e.getValue().isAlive())
                    .map(Map.Entry::getKey).sorted().toList();
            if (!cluster.members().equals(running)) {
                return false;
            }
            Map<String, String> owners = cluster.owners();
            Map<String, List<String>> fetching = observer.fetching();
            for (String p : cluster.partitions()) {
                String owner = owners.get(p);
                ChildProcess c = owner == null ? null : cluster.consumers().get(owner);
                if (c == null || !c.isAlive() || c.isPaused() || !List.of(owner).equals(fetching.get(p))) {
                    return false;
                }
            }
            return true;
        } catch (RuntimeException e) {
            return false; // ZooKeeper unreachable from the test right now: not converged
        }
    }

    private String state() {
        String owners;
        try {
            owners = cluster.owners().toString();
        } catch (RuntimeException e) {
            owners = "(unreadable: " + e.getMessage() + ")";
        }
        String members;
        try {
            members = cluster.members().toString();
        } catch (RuntimeException e) {
            members = "(unreadable)";
        }
        return "coordinator " + cluster.coordinator() + ", members " + members + ", owners " + owners
                + ", fetching " + observer.fetching();
    }

    private List<Path> historyFiles() {
        return cluster.consumers().keySet().stream().map(cluster::historyFile).toList();
    }

    /**
     * Heals everything, waits for convergence and for every record to be delivered, then checks the history and
     * writes the report. The cluster is closed afterwards.
     */
    public Report.Result finish() throws IOException {
        cluster.healAllLinks();
        cluster.consumers().values().stream().filter(ChildProcess::isPaused).forEach(ChildProcess::resume);
        cluster.brokers().values().stream().filter(ChildProcess::isPaused).forEach(ChildProcess::resume);
        long healed = System.nanoTime();
        cluster.history().add(new Entry.Healed(healed));
        boolean converged = Waits.until(this::converged, CONVERGENCE_BOUND);
        steps.add(new Report.Step("final heal", healed, healed, converged ? System.nanoTime() - healed : -1));
        cluster.workload().ifPresent(w -> w.close());
        Map<String, Long> produced = cluster.workload().map(w -> w.counts()).orElse(Map.of());
        Waits.until(() -> {
            observer.poll(historyFiles());
            return observer.undelivered(produced).isEmpty();
        }, DELIVERY_TIMEOUT);
        cluster.recordOwners();
        long end = System.nanoTime();

        History history = merge(end);
        List<Violation> violations = new ArrayList<>(runViolations);
        violations.addAll(Checkers.exclusiveOwnership(history));
        violations.addAll(Checkers.noStaleCommandApplied(history));
        violations.addAll(Checkers.fencedWrites(history));
        violations.addAll(Checkers.oneCoordinatorPerEpoch(history));
        violations.addAll(Checkers.noLostRecords(history, Map.of(ChaosCluster.GROUP, Set.of(ChaosCluster.TOPIC))));
        violations.addAll(Checkers.convergence(history, CONVERGENCE_BOUND.toNanos()));
        Path dir = cluster.dir();
        HistoryCodec.write(dir.resolve("history.jsonl"), history.entries());
        Report.Result result = new Report(name, seed, cluster, history, steps, violations, startNanos,
                Checkers.duplicates(history), undecodable).write(dir.resolve("report.md"));
        return result;
    }

    private int undecodable;

    /** Everything the run knows, cut at {@code end} (what the consumers log while shutting down is not judged). */
    private History merge(long end) {
        List<Entry> all = new ArrayList<>(cluster.history().entries());
        for (Path f : historyFiles()) {
            HistoryCodec.Read read = HistoryCodec.read(f);
            undecodable += read.undecodable();
            all.addAll(read.entries());
        }
        cluster.brokers().forEach((id, p) -> all.addAll(BrokerLogs.read(p.log(), id, startWallMs, startNanos)));
        ZkTxnHistory txns = ZkTxnHistory.read(cluster.zk().dataDirs(), startWallMs, startNanos);
        undecodable += txns.undecodable();
        txns.entries().stream().filter(e -> e instanceof Entry.Elected || e instanceof Entry.Written
                || e instanceof Entry.OffsetRead).forEach(all::add);
        return History.of(all.stream().filter(e -> e.nanoTime() <= end).toList());
    }

    @Override
    public ChaosCluster cluster() {
        return cluster;
    }

    @Override
    public Observer observer() {
        return observer;
    }

    @Override
    public Random random() {
        return random;
    }

    @Override
    public void injected(String detail) {
        record("inject", detail);
    }

    @Override
    public void healed(String detail) {
        record("heal", detail);
    }

    @Override
    public void expect(boolean holds, String invariant, String detail) {
        if (!holds) {
            runViolations.add(new Violation(invariant, current + ": " + detail));
            record("note", "expected, but not so: " + detail);
        }
    }

    @Override
    public void note(String detail) {
        record("note", detail);
    }

    private void record(String action, String detail) {
        String nemesis = current == null ? "-" : current.toString();
        cluster.history().add(new Entry.Fault(System.nanoTime(), nemesis, action, detail));
    }

    @Override
    public void close() {
        cluster.close();
    }
}
