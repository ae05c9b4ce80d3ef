package shepherd.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The checks of the consumer integration tests over a delivery log (in the order the applications took the
 * records): nothing missing, duplicates, and one consumer per (partition, generation).
 */
final class DeliveryChecks {
    /** One record as an application took it. */
    record Delivery(String consumer, String partition, long offset, int generation) {}

    private DeliveryChecks() {}

    /** Deliveries of a (partition, offset) beyond its first, in log order. */
    static List<Delivery> duplicates(List<Delivery> log) {
        Set<String> seen = new HashSet<>();
        List<Delivery> out = new ArrayList<>();
        for (Delivery d : log) {
            if (!seen.add(d.partition() + "@" + d.offset())) {
                out.add(d);
            }
        }
        return out;
    }

    /** (partition, generation) pairs that more than one consumer delivered, with those consumers. */
    static Map<String, Set<String>> sharedGenerations(List<Delivery> log) {
        Map<String, Set<String>> owners = new TreeMap<>();
        for (Delivery d : log) {
            owners.computeIfAbsent(d.partition() + "@g" + d.generation(), k -> new HashSet<>()).add(d.consumer());
        }
        owners.values().removeIf(s -> s.size() < 2);
        return owners;
    }

    /** Per partition whose records {@code [0, produced)} were not all delivered: "delivered/produced". */
    static Map<String, String> missing(List<Delivery> log, Map<String, Long> produced) {
        Map<String, Set<Long>> seen = new HashMap<>();
        for (Delivery d : log) {
            seen.computeIfAbsent(d.partition(), k -> new HashSet<>()).add(d.offset());
        }
        Map<String, String> out = new TreeMap<>();
        produced.forEach((p, n) -> {
            long have = seen.getOrDefault(p, Set.of()).stream().filter(o -> o < n).count();
            if (have < n) {
                out.put(p, have + "/" + n);
            }
        });
        return out;
    }
}
