package shepherd.chaos.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import shepherd.chaos.history.Entry.Delivered;
import shepherd.chaos.history.Entry.Died;
import shepherd.chaos.history.Entry.Elected;
import shepherd.chaos.history.Entry.EpochSeen;
import shepherd.chaos.history.Entry.FetchStarted;
import shepherd.chaos.history.Entry.FetchStopped;
import shepherd.chaos.history.Entry.OffsetRead;
import shepherd.chaos.history.Entry.OwnerRead;
import shepherd.chaos.history.Entry.Produced;
import shepherd.chaos.history.Entry.Written;

/**
 * The chaos suite's checkers over a {@link History}, named as in DESIGN §7. Each returns the violations it found
 * (empty: the history satisfies it). Every one has a negative control in {@code CheckersTest}.
 */
public final class Checkers {
    private Checkers() {}

    /** One partition's fetching by one consumer: {@code [from, to)}, {@code to} = MAX while still open. */
    record Interval(String consumer, int epoch, int generation, long from, long to) {
        boolean overlaps(Interval o) {
            return from < o.to && o.from < to;
        }
    }

    /**
     * {@code ExclusiveOwnership}: for every group and partition, the fetch intervals of different consumers never
     * overlap. An interval opens at FetchStarted and ends at the consumer's FetchStopped of that partition, at its
     * death (SIGKILL), or never (still fetching at the end of the history).
     */
    public static List<Violation> exclusiveOwnership(History history) {
        List<Violation> out = new ArrayList<>();
        intervals(history).forEach((partition, list) -> {
            for (int i = 0; i < list.size(); i++) {
                for (int j = i + 1; j < list.size(); j++) {
                    Interval a = list.get(i);
                    Interval b = list.get(j);
                    if (!a.consumer().equals(b.consumer()) && a.overlaps(b)) {
                        out.add(new Violation("ExclusiveOwnership", partition + " fetched by " + a + " and " + b));
                    }
                }
            }
        });
        return out;
    }

    /** Per {@code group/topic/partition}, every fetch interval in order of start. */
    static Map<String, List<Interval>> intervals(History history) {
        Map<String, List<Interval>> closed = new TreeMap<>();
        Map<String, Map<String, FetchStarted>> open = new HashMap<>(); // consumer key → partition key → start
        for (Entry e : history.entries()) {
            if (e instanceof FetchStarted s) {
                open.computeIfAbsent(s.group() + "/" + s.consumer(), k -> new HashMap<>()).put(key(s), s);
            } else if (e instanceof FetchStopped s) {
                FetchStarted start = open.getOrDefault(s.group() + "/" + s.consumer(), Map.of()).get(key(s));
                if (start != null) {
                    open.get(s.group() + "/" + s.consumer()).remove(key(s));
                    add(closed, start, s.nanoTime());
                }
            } else if (e instanceof Died d) {
                Map<String, FetchStarted> of = open.remove(d.group() + "/" + d.consumer());
                if (of != null) {
                    of.values().forEach(start -> add(closed, start, d.nanoTime()));
                }
            }
        }
        open.values().forEach(of -> of.values().forEach(start -> add(closed, start, Long.MAX_VALUE)));
        closed.values().forEach(list -> list.sort((x, y) -> Long.compare(x.from(), y.from())));
        return closed;
    }

    private static void add(Map<String, List<Interval>> into, FetchStarted s, long to) {
        into.computeIfAbsent(key(s), k -> new ArrayList<>())
                .add(new Interval(s.consumer(), s.epoch(), s.generation(), s.nanoTime(), to));
    }

    private static String key(FetchStarted s) {
        return s.group() + "/" + s.topic() + "/" + s.partition();
    }

    private static String key(FetchStopped s) {
        return s.group() + "/" + s.topic() + "/" + s.partition();
    }

    /**
     * {@code NoStaleCommandApplied}: a consumer never starts fetching for an epoch below the highest it has seen,
     * and never starts a generation while a fetch of another generation is still open (a Start it was not
     * stopped for).
     */
    public static List<Violation> noStaleCommandApplied(History history) {
        List<Violation> out = new ArrayList<>();
        Map<String, Integer> highest = new HashMap<>();
        Map<String, Map<String, Integer>> fetching = new HashMap<>(); // consumer → partition → generation
        for (Entry e : history.entries()) {
            if (e instanceof EpochSeen s) {
                highest.merge(s.group() + "/" + s.consumer(), s.epoch(), Math::max);
            } else if (e instanceof FetchStarted s) {
                String c = s.group() + "/" + s.consumer();
                int seen = highest.getOrDefault(c, -1);
                if (s.epoch() < seen) {
                    out.add(new Violation("NoStaleCommandApplied", c + " started " + s.topic() + "/" + s.partition()
                            + " for epoch " + s.epoch() + " after seeing epoch " + seen));
                }
                highest.merge(c, s.epoch(), Math::max);
                Map<String, Integer> now = fetching.computeIfAbsent(c, k -> new HashMap<>());
                now.values().stream().filter(g -> g != s.generation()).findFirst().ifPresent(g -> out.add(
                        new Violation("NoStaleCommandApplied", c + " started generation " + s.generation()
                                + " while still fetching generation " + g)));
                now.put(s.topic() + "/" + s.partition(), s.generation());
            } else if (e instanceof FetchStopped s) {
                Map<String, Integer> now = fetching.get(s.group() + "/" + s.consumer());
                if (now != null) {
                    now.remove(s.topic() + "/" + s.partition());
                }
            } else if (e instanceof Died d) {
                fetching.remove(d.group() + "/" + d.consumer());
            }
        }
        return out;
    }

    /**
     * {@code FencedWrites}: no coordinator write committed after a higher epoch was established (its zxid is
     * above the zxid of a later epoch's bump), and no committed offset ever decreases between readings.
     */
    public static List<Violation> fencedWrites(History history) {
        List<Violation> out = new ArrayList<>();
        List<Elected> elections = history.of(Elected.class);
        for (Written w : history.of(Written.class)) {
            for (Elected later : elections) {
                if (later.epoch() > w.epoch() && w.zxid() > later.zxid()) {
                    out.add(new Violation("FencedWrites", "broker " + w.broker() + " wrote " + w.what()
                            + " under epoch " + w.epoch() + " at zxid " + w.zxid() + ", after epoch " + later.epoch()
                            + " began at zxid " + later.zxid()));
                }
            }
        }
        Map<String, OffsetRead> last = new HashMap<>();
        for (OffsetRead r : history.of(OffsetRead.class)) {
            String k = r.group() + "/" + r.topic() + "/" + r.partition();
            OffsetRead before = last.put(k, r);
            if (before != null && r.offset() < before.offset()) {
                out.add(new Violation("FencedWrites", "committed offset of " + k + " went back from "
                        + before.offset() + " to " + r.offset()));
            }
        }
        return out;
    }

    /**
     * {@code OneCoordinatorPerEpoch}: each epoch belongs to one election. Two elections with the same epoch — a
     * broker that won without bumping {@code /consumers/epoch} — leave consumers unable to tell the deposed
     * coordinator's commands from the new one's.
     */
    public static List<Violation> oneCoordinatorPerEpoch(History history) {
        List<Violation> out = new ArrayList<>();
        Map<Integer, Elected> first = new HashMap<>();
        for (Elected e : history.of(Elected.class)) {
            Elected before = first.putIfAbsent(e.epoch(), e);
            if (before != null) {
                out.add(new Violation("OneCoordinatorPerEpoch", "epoch " + e.epoch() + " was won by broker "
                        + before.broker() + " at zxid " + before.zxid() + " and again by broker " + e.broker()
                        + " at zxid " + e.zxid()));
            }
        }
        return out;
    }

    /** Every produced record of the group's topics was delivered at least once to the group. */
    public static List<Violation> noLostRecords(History history, Map<String, Set<String>> topicsByGroup) {
        List<Violation> out = new ArrayList<>();
        Map<String, Set<String>> delivered = new HashMap<>();
        for (Delivered d : history.of(Delivered.class)) {
            delivered.computeIfAbsent(d.group(), k -> new HashSet<>())
                    .add(d.topic() + "/" + d.partition() + "@" + d.offset());
        }
        topicsByGroup.forEach((group, topics) -> {
            Set<String> got = delivered.getOrDefault(group, Set.of());
            List<String> lost = history.of(Produced.class).stream().filter(p -> topics.contains(p.topic()))
                    .map(p -> p.topic() + "/" + p.partition() + "@" + p.offset()).filter(r -> !got.contains(r))
                    .toList();
            if (!lost.isEmpty()) {
                out.add(new Violation("NoLostRecords", "group " + group + " never received " + lost.size()
                        + " records, first " + lost.subList(0, Math.min(5, lost.size()))));
            }
        });
        return out;
    }

    /** Per group, deliveries of a record beyond its first (reported, not a violation: at-least-once). */
    public static Map<String, Integer> duplicates(History history) {
        Map<String, Set<String>> seen = new HashMap<>();
        Map<String, Integer> dup = new TreeMap<>();
        for (Delivered d : history.of(Delivered.class)) {
            if (!seen.computeIfAbsent(d.group(), k -> new HashSet<>())
                    .add(d.topic() + "/" + d.partition() + "@" + d.offset())) {
                dup.merge(d.group(), 1, Integer::sum);
            }
        }
        return dup;
    }

    /**
     * {@code Convergence}: after the last heal, within {@code boundNanos}, every partition ZooKeeper names an owner
     * for (its last reading) is fetched by exactly that consumer and nobody else, and that fetch began no later
     * than heal + bound.
     */
    public static List<Violation> convergence(History history, long boundNanos) {
        List<Violation> out = new ArrayList<>();
        long healed = history.of(Entry.Healed.class).stream().mapToLong(Entry::nanoTime).max().orElse(0);
        Map<String, OwnerRead> owners = new TreeMap<>();
        history.of(OwnerRead.class).forEach(r -> owners.put(r.group() + "/" + r.topic() + "/" + r.partition(), r));
        Map<String, List<Interval>> intervals = intervals(history);
        owners.forEach((partition, owner) -> {
            List<Interval> open = intervals.getOrDefault(partition, List.of()).stream()
                    .filter(i -> i.to() == Long.MAX_VALUE).toList();
            if (open.size() != 1 || !open.get(0).consumer().equals(owner.consumer())) {
                out.add(new Violation("Convergence", partition + " is owned by " + owner.consumer()
                        + " but fetched at the end by " + open));
            } else if (open.get(0).from() > healed + boundNanos) {
                out.add(new Violation("Convergence", partition + " was fetched by its owner only "
                        + (open.get(0).from() - healed) / 1_000_000 + " ms after the heal, bound "
                        + boundNanos / 1_000_000 + " ms"));
            }
        });
        return out;
    }
}
