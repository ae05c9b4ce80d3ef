package shepherd.testkit;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which nodes of a {@link SimNetwork} a new connection may join: any two, unless the pair is partitioned or either
 * node is isolated; a node always reaches itself.
 */
final class SimReachability {
    /** Partitioned pairs, each in name order so that a partition has no direction. */
    private final Set<List<String>> partitions = new HashSet<>();
    private final Set<String> isolated = new HashSet<>();

    void partition(String a, String b) {
        partitions.add(pair(a, b));
    }

    void heal(String a, String b) {
        partitions.remove(pair(a, b));
    }

    void isolate(String node) {
        isolated.add(node);
    }

    void rejoin(String node) {
        isolated.remove(node);
    }

    boolean reachable(String a, String b) {
        if (a.equals(b)) {
            return true;
        }
        return !isolated.contains(a) && !isolated.contains(b) && !partitions.contains(pair(a, b));
    }

    private static List<String> pair(String a, String b) {
        return a.compareTo(b) <= 0 ? List.of(a, b) : List.of(b, a);
    }
}
