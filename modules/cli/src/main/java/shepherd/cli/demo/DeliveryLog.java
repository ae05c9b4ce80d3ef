package shepherd.cli.demo;

import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Every record each group's applications took, kept compactly: per partition which offsets were seen (a bit set),
 * how many deliveries repeated one, and per (partition, generation) which consumers delivered it. The producer
 * writes {@code "<partition>:<offset>"}, so a record whose value says otherwise is counted as corrupt.
 * Thread-safe: application threads record, the view and the summary read.
 */
public final class DeliveryLog {
    private final Map<String, GroupLog> groups = new LinkedHashMap<>();
    /** The latest scripted event: duplicates are counted against it. */
    private volatile String cause = "initial join";

    /** From now on, duplicates are put down to {@code what} (the event just caused). */
    public void cause(String what) {
        cause = what;
    }

    /** Records one delivery. {@code partition} is {@code topic/partitionId}. */
    public void record(String group, String consumer, String partition, long offset, int generation,
                       boolean intact) {
        GroupLog g;
        synchronized (groups) {
            g = groups.computeIfAbsent(group, k -> new GroupLog());
        }
        g.record(consumer, partition, offset, generation, intact, cause);
    }

    /** Creates the group's log if absent, so a group that delivered nothing still shows in the summary. */
    public void register(String group) {
        synchronized (groups) {
            groups.computeIfAbsent(group, k -> new GroupLog());
        }
    }

    public Set<String> groups() {
        synchronized (groups) {
            return Set.copyOf(groups.keySet());
        }
    }

    /** A consistent copy of one group's log. */
    public GroupStats stats(String group) {
        GroupLog g;
        synchronized (groups) {
            g = groups.get(group);
        }
        return g == null ? new GroupLog().stats() : g.stats();
    }

    /**
     * One group's figures.
     *
     * @param seen        per partition, the offsets delivered at least once
     * @param deliveries  every delivery, repeats included
     * @param duplicates  deliveries of an offset already delivered
     * @param duplicatesByCause duplicates by the scripted event that preceded them, in the order of the events
     * @param perConsumer deliveries by consumer
     * @param sharedGenerations "partition g<generation>" → the consumers that delivered it, where more than one did
     * @param corrupt     deliveries whose value was not {@code "<partition>:<offset>"}
     */
    public record GroupStats(Map<String, BitSet> seen, long deliveries, long duplicates,
                             Map<String, Long> duplicatesByCause, Map<String, Long> perConsumer,
                             Map<String, Set<String>> sharedGenerations, long corrupt) {

        /** Per partition with a record in {@code [0, produced)} never delivered: how many are missing. */
        public Map<String, Long> missing(Map<String, Long> produced) {
            Map<String, Long> out = new TreeMap<>();
            produced.forEach((p, n) -> {
                BitSet s = seen.getOrDefault(p, new BitSet());
                long have = s.get(0, (int) Math.min(n, Integer.MAX_VALUE)).cardinality();
                if (have < n) {
                    out.put(p, n - have);
                }
            });
            return out;
        }
    }

    private static final class GroupLog {
        private final Map<String, BitSet> seen = new HashMap<>();
        private final Map<String, Long> perConsumer = new TreeMap<>();
        private final Map<String, Long> duplicatesByCause = new LinkedHashMap<>();
        private final Map<String, Set<String>> owners = new HashMap<>();
        private long deliveries;
        private long duplicates;
        private long corrupt;

        synchronized void record(String consumer, String partition, long offset, int generation, boolean intact,
                                 String cause) {
            deliveries++;
            perConsumer.merge(consumer, 1L, Long::sum);
            if (!intact) {
                corrupt++;
            }
            BitSet s = seen.computeIfAbsent(partition, k -> new BitSet());
            int index = (int) Math.min(offset, Integer.MAX_VALUE);
            if (s.get(index)) {
                duplicates++;
                duplicatesByCause.merge(cause, 1L, Long::sum);
            } else {
                s.set(index);
            }
            owners.computeIfAbsent(partition + " g" + generation, k -> new TreeSet<>()).add(consumer);
        }

        synchronized GroupStats stats() {
            Map<String, BitSet> seenCopy = new TreeMap<>();
            seen.forEach((p, s) -> seenCopy.put(p, (BitSet) s.clone()));
            Map<String, Set<String>> shared = new TreeMap<>();
            owners.forEach((k, v) -> {
                if (v.size() > 1) {
                    shared.put(k, Set.copyOf(v));
                }
            });
            return new GroupStats(seenCopy, deliveries, duplicates, new LinkedHashMap<>(duplicatesByCause),
                    new TreeMap<>(perConsumer), shared, corrupt);
        }
    }
}
