package shepherd.cli.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The end of a demo: figures (produced, delivered, duplicates, rebalance and failover times) and the invariant
 * checks that decide the exit code. Pure: everything comes in as values, so the maths and the checks are tested
 * without a cluster, including that a lost record or a shared generation makes the verdict fail.
 */
public final class Summary {
    /** How {@link Rebalance} durations are measured, printed with them. */
    static final String REBALANCE_MEASURE = "measured from the consumers' own statuses, sampled every "
            + Monitor.POLL_MS + " ms: from the first sample where a live member stops fetching (or a new one"
            + " registers) to the first where every live member fetches under one new (epoch, generation)";

    /**
     * What the summary is computed from.
     *
     * @param produced          topic/partition → records written (the producer has stopped)
     * @param coordinatorsAtEnd the brokers coordinating at the end, described ("broker 2 epoch 5 ACTIVE")
     */
    public record Input(long seed, Map<String, Long> produced, DeliveryLog log, List<String> groups,
                        List<Rebalance> rebalances, List<Failover> failovers, List<String> coordinatorsAtEnd) {}

    /** One invariant and whether it held, with the evidence when it did not. */
    public record Check(String name, boolean holds, String detail) {
        String line() {
            return (holds ? "  [ok]     " : "  [FAILED] ") + name + (detail.isEmpty() ? "" : ": " + detail);
        }
    }

    private final List<String> lines;
    private final List<Check> checks;

    private Summary(List<String> lines, List<Check> checks) {
        this.lines = List.copyOf(lines);
        this.checks = List.copyOf(checks);
    }

    public static Summary of(Input in) {
        List<String> lines = new ArrayList<>();
        long total = in.produced().values().stream().mapToLong(Long::longValue).sum();
        lines.add("== summary (seed " + in.seed() + "; repeat with --seed " + in.seed() + ") ==");
        lines.add(String.format("records produced: %,d on %d partitions", total, in.produced().size()));
        List<String> lost = new ArrayList<>();
        List<String> shared = new ArrayList<>();
        List<String> corrupt = new ArrayList<>();
        for (String g : in.groups()) {
            DeliveryLog.GroupStats s = in.log().stats(g);
            Map<String, Long> missing = s.missing(in.produced());
            long missingTotal = missing.values().stream().mapToLong(Long::longValue).sum();
            lines.add(String.format("group %s: %,d of %,d records delivered (%,d deliveries, %,d duplicates); by"
                    + " consumer: %s", g, total - missingTotal, total, s.deliveries(), s.duplicates(),
                    s.perConsumer().entrySet().stream().map(e -> String.format("%s %,d", e.getKey(), e.getValue()))
                            .collect(Collectors.joining(", "))));
            if (s.duplicates() > 0) {
                lines.add("  duplicates by the event before them: " + s.duplicatesByCause().entrySet().stream()
                        .map(e -> String.format("%s %,d", e.getKey(), e.getValue()))
                        .collect(Collectors.joining(", ")));
            }
            if (missingTotal > 0) {
                lost.add(g + " misses " + missingTotal + " " + abbreviate(missing));
            }
            if (!s.sharedGenerations().isEmpty()) {
                shared.add(g + " " + abbreviate(s.sharedGenerations()));
            }
            if (s.corrupt() > 0) {
                corrupt.add(g + " " + s.corrupt());
            }
        }
        lines.add(rebalanceLine(in.rebalances()));
        lines.add("  (" + REBALANCE_MEASURE + ")");
        if (in.failovers().isEmpty()) {
            lines.add("failover: none observed");
        }
        in.failovers().forEach(f -> lines.add("failover: " + f.describe()));
        List<Check> checks = List.of(
                new Check("no record lost: every produced record delivered at least once to each group",
                        lost.isEmpty(), String.join("; ", lost)),
                new Check("no (partition, generation) delivered by two consumers", shared.isEmpty(),
                        String.join("; ", shared)),
                new Check("records intact: every value is <partition>:<offset>", corrupt.isEmpty(),
                        String.join("; ", corrupt)),
                new Check("exactly one coordinator at the end", in.coordinatorsAtEnd().size() == 1,
                        in.coordinatorsAtEnd().isEmpty() ? "none" : String.join(", ", in.coordinatorsAtEnd())));
        return new Summary(lines, checks);
    }

    static String rebalanceLine(List<Rebalance> rebalances) {
        if (rebalances.isEmpty()) {
            return "rebalances: none observed";
        }
        long[] d = rebalances.stream().mapToLong(Rebalance::durationMs).sorted().toArray();
        String perGroup = rebalances.stream().collect(Collectors.groupingBy(Rebalance::group,
                        java.util.TreeMap::new, Collectors.counting())).entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
        return String.format("rebalances: %d (%s); duration min %s, median %s, max %s", d.length, perGroup,
                ms(d[0]), ms(median(d)), ms(d[d.length - 1]));
    }

    /** A measured duration: below one sampling interval it was too short to see, so it is shown as such. */
    static String ms(long ms) {
        return ms < Monitor.POLL_MS ? "<" + Monitor.POLL_MS + " ms" : String.format("%,d ms", ms);
    }

    /** The median of sorted values: the middle one, or the mean of the two middle ones. */
    static long median(long[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String abbreviate(Map<String, ?> map) {
        String text = map.toString();
        return text.length() <= 200 ? text : text.substring(0, 200) + "...}";
    }

    public List<Check> checks() {
        return checks;
    }

    /** 0 when every invariant holds, 1 otherwise. */
    public int exitCode() {
        return checks.stream().allMatch(Check::holds) ? 0 : 1;
    }

    /** Everything to print: figures, then one line per invariant, then the verdict. */
    public List<String> lines() {
        List<String> out = new ArrayList<>(lines);
        out.add("invariants:");
        checks.forEach(c -> out.add(c.line()));
        List<String> failed = checks.stream().filter(c -> !c.holds()).map(Check::name).toList();
        out.add(failed.isEmpty() ? "result: every invariant holds (exit code 0)"
                : "result: FAILED " + String.join("; ", failed) + " (exit code 1)");
        return out;
    }
}
