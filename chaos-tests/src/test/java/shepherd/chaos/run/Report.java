package shepherd.chaos.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import shepherd.chaos.cluster.ChaosCluster;
import shepherd.chaos.history.Entry;
import shepherd.chaos.history.History;
import shepherd.chaos.history.Violation;

/**
 * The one-page report of a run ({@code report.md} beside {@code history.jsonl}): faults with their times,
 * elections, rebalances, time to converge after each heal, records, duplicates, and the violations found.
 * Times are milliseconds since the run started.
 */
public final class Report {
    /** One nemesis of the run: when it began, when it was healed, how long convergence took after (−1: never). */
    public record Step(String nemesis, long beganNanos, long healedNanos, long convergedAfterNanos) {}

    /** What a test asserts on. */
    public record Result(Path report, List<Violation> violations, Map<String, Integer> duplicates, String text) {}

    private final String name;
    private final long seed;
    private final ChaosCluster cluster;
    private final History history;
    private final List<Step> steps;
    private final List<Violation> violations;
    private final long start;
    private final Map<String, Integer> duplicates;
    private final int undecodable;

    Report(String name, long seed, ChaosCluster cluster, History history, List<Step> steps,
           List<Violation> violations, long start, Map<String, Integer> duplicates, int undecodable) {
        this.name = name;
        this.seed = seed;
        this.cluster = cluster;
        this.history = history;
        this.steps = steps;
        this.violations = violations;
        this.start = start;
        this.duplicates = duplicates;
        this.undecodable = undecodable;
    }

    Result write(Path file) throws IOException {
        StringBuilder out = new StringBuilder();
        ChaosCluster.Settings s = cluster.settings();
        out.append("# Chaos run `").append(name).append("` — ")
                .append(violations.isEmpty() ? "no violation" : violations.size() + " violation(s)").append("\n\n");
        out.append("seed ").append(seed).append(" · ").append(s.brokers()).append(" brokers, ")
                .append(cluster.zk().size()).append(" ZooKeeper nodes, ").append(cluster.consumers().size())
                .append(" consumers · session ").append(s.sessionTimeoutMs()).append(" ms, ping ")
                .append(s.pingIntervalMs()).append(" ms × ").append(s.maxPingRetries() + 1).append(" (lease ")
                .append(s.leaseMs()).append(" ms)").append(s.fencingDisabled() ? " · **fencing disabled**" : "")
                .append(" · history: `history.jsonl`\n\n");
        faults(out);
        convergence(out);
        elections(out);
        rebalances(out);
        records(out);
        out.append("## Violations\n\n");
        if (violations.isEmpty()) {
            out.append("none: ExclusiveOwnership, NoStaleCommandApplied, FencedWrites, OneCoordinatorPerEpoch, "
                    + "NoLostRecords and Convergence hold.\n");
        }
        violations.forEach(v -> out.append("- **").append(v.invariant()).append("**: ").append(v.detail())
                .append('\n'));
        Files.writeString(file, out, StandardCharsets.UTF_8);
        return new Result(file, List.copyOf(violations), duplicates, out.toString());
    }

    private void faults(StringBuilder out) {
        out.append("## Faults\n\n| t (ms) | nemesis | action | detail |\n|---:|---|---|---|\n");
        for (Entry.Fault f : history.of(Entry.Fault.class)) {
            out.append("| ").append(ms(f.nanoTime())).append(" | ").append(f.nemesis()).append(" | ")
                    .append(f.action()).append(" | ").append(f.detail()).append(" |\n");
        }
        out.append('\n');
    }

    private void convergence(StringBuilder out) {
        out.append("## Convergence after each heal\n\n| nemesis | began | healed | converged after (ms) |\n"
                + "|---|---:|---:|---:|\n");
        for (Step st : steps) {
            out.append("| ").append(st.nemesis()).append(" | ").append(ms(st.beganNanos())).append(" | ")
                    .append(ms(st.healedNanos())).append(" | ")
                    .append(st.convergedAfterNanos() < 0 ? "**never**" : st.convergedAfterNanos() / 1_000_000)
                    .append(" |\n");
        }
        out.append('\n');
    }

    private void elections(StringBuilder out) {
        out.append("## Elections (ZooKeeper's transaction log)\n\n| t (ms) | zxid | broker | epoch |\n"
                + "|---:|---|---:|---:|\n");
        for (Entry.Elected e : history.of(Entry.Elected.class)) {
            out.append("| ").append(ms(e.nanoTime())).append(" | 0x").append(Long.toHexString(e.zxid()))
                    .append(" | ").append(e.broker()).append(" | ").append(e.epoch()).append(" |\n");
        }
        Map<Integer, Long> writes = new TreeMap<>();
        history.of(Entry.Written.class).forEach(w -> writes.merge(w.epoch(), 1L, Long::sum));
        out.append("\nCoordinator writes per epoch: ").append(writes).append("\n\n");
    }

    /** Per broker, from its own log: rebalances by outcome, elections, session events; then its story in order. */
    private void rebalances(StringBuilder out) {
        out.append("## Brokers (their logs)\n\n| broker | rebalances stable | retrying | elections won | "
                + "disconnects | session expiries |\n|---:|---:|---:|---:|---:|---:|\n");
        List<Entry.BrokerEvent> events = history.of(Entry.BrokerEvent.class);
        cluster.brokers().keySet().forEach(id -> out.append("| ").append(id).append(" | ")
                .append(count(events, id, "rebalance ended", "outcome=stable")).append(" | ")
                .append(count(events, id, "rebalance ended", "outcome=retrying")).append(" | ")
                .append(count(events, id, "election won", "")).append(" | ")
                .append(count(events, id, "zookeeper disconnected", "")).append(" | ")
                .append(count(events, id, "zookeeper session expired", "")).append(" |\n"));
        out.append("\n| t (ms) | broker | event | detail |\n|---:|---:|---|---|\n");
        List<Entry.BrokerEvent> story = events.stream().filter(e -> STORY.contains(e.event())).toList();
        story.stream().limit(STORY_ROWS_MAX).forEach(e -> out.append("| ").append(ms(e.nanoTime())).append(" | ")
                .append(e.broker()).append(" | ").append(e.event()).append(" | ").append(e.detail()).append(" |\n"));
        if (story.size() > STORY_ROWS_MAX) {
            out.append("\n(").append(story.size() - STORY_ROWS_MAX).append(" more in `history.jsonl`, type "
                    + "`BrokerEvent`)\n");
        }
        out.append('\n');
    }

    /** The broker events worth a row of the one-page story (rebalances and role steps are only counted). */
    private static final java.util.Set<String> STORY = java.util.Set.of("election won", "zookeeper session expired",
            "handed over", "notice");
    private static final int STORY_ROWS_MAX = 40;

    private static long count(List<Entry.BrokerEvent> events, int broker, String event, String containing) {
        return events.stream().filter(e -> e.broker() == broker && e.event().equals(event)
                && e.detail().contains(containing)).count();
    }

    private void records(StringBuilder out) {
        long produced = history.of(Entry.Produced.class).size();
        long delivered = history.of(Entry.Delivered.class).size();
        out.append("## Records\n\nproduced ").append(produced).append(", deliveries ").append(delivered)
                .append(", duplicates ").append(duplicates.isEmpty() ? "0" : duplicates.toString())
                .append(" (at-least-once: counted, not a violation); undecodable history lines ").append(undecodable)
                .append("\n\n");
    }

    private String ms(long nanos) {
        return Long.toString((nanos - start) / 1_000_000);
    }
}
