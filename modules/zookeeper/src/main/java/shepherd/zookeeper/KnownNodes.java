package shepherd.zookeeper;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs.OpCode;

/**
 * What this session last learned about the existence of the nodes below {@code /consumers/groups}: a hint that lets
 * {@link FencedWriter} plan a multi (create or setData per node) without one {@code exists} probe per node.
 *
 * <p><b>Why the hint is good.</b> Facts come from the answers of this session's own requests — reads, probes and
 * committed multis — and are recorded on the adapter's thread in the order ZooKeeper answered them, which is the order
 * it applied them. Inside an epoch nobody but the coordinator writes owners, registrations and the group node
 * (fenced), so the recorded state is the tree's. The exception is {@code shepherd offsets reset}, which may create,
 * change or delete offsets of a group that has no member.
 *
 * <p><b>Why a wrong hint is harmless.</b> A multi is atomic; a plan built on a wrong fact fails as a whole with
 * NodeExists or NoNode at the op the fact was about, nothing of it applied. {@link FencedWriter} then forgets what the
 * write touched, probes, and sends the re-planned multi before any later effect of the session, so the tree and
 * everybody reading it see exactly what one correctly planned multi would have produced.
 *
 * <p>A listed parent is one whose complete child list this session knows: a child missing from it is known
 * absent, which lets a first create (a new registration, a new owner) go without a probe too. Bounded: past
 * {@link #ENTRIES_MAX} entries everything is forgotten (it is only a hint).
 */
final class KnownNodes {
    static final int ENTRIES_MAX = 1 << 20;

    /** Path → exists, ordered so that a node's descendants are one range ({@code path + "/"} to {@code path + "0"}). */
    private final TreeMap<String, Boolean> known = new TreeMap<>();
    private final TreeSet<String> listed = new TreeSet<>();

    /** TRUE or FALSE when known, null when not. */
    Boolean exists(String path) {
        Boolean fact = known.get(path);
        if (fact != null) {
            return fact;
        }
        if (!relevant(path)) {
            return null;
        }
        String parent = ZkPaths.parent(path);
        if (listed.contains(parent)) {
            return Boolean.FALSE; // a complete child list without it
        }
        for (String p = parent; relevant(p); p = ZkPaths.parent(p)) {
            Boolean ancestor = known.get(p);
            if (ancestor != null) {
                return ancestor ? null : Boolean.FALSE; // below a missing node nothing exists
            }
        }
        return null;
    }

    /** {@code path} exists, hence so does every ancestor. */
    void present(String path) {
        if (!relevant(path)) {
            return;
        }
        bound();
        for (String p = path; relevant(p) && !Boolean.TRUE.equals(known.get(p)); p = ZkPaths.parent(p)) {
            known.put(p, Boolean.TRUE);
        }
    }

    /** {@code path} does not exist, hence neither does anything below it. */
    void absent(String path) {
        if (!relevant(path)) {
            return;
        }
        bound();
        dropBelow(path);
        known.put(path, Boolean.FALSE);
    }

    /** The complete child list of {@code parent}: every child exists, every other child is absent. */
    void children(String parent, List<String> names) {
        if (!relevant(parent)) {
            return;
        }
        present(parent);
        Set<String> now = new HashSet<>(names);
        for (String child : List.copyOf(below(parent).keySet())) {
            String rest = child.substring(parent.length() + 1);
            if (rest.indexOf('/') < 0 && !now.contains(rest)) {
                absent(child);
            }
        }
        for (String name : names) {
            present(parent + "/" + name);
        }
        listed.add(parent);
    }

    /**
     * Whether {@code path} exists is in doubt (an op on it failed, or its outcome is unknown), and so is the
     * completeness of its parent's child list. What is known below it stands: an op of ours only ever touches one
     * node, and a node it might have created had no known children.
     */
    void doubt(String path) {
        known.remove(path);
        if (!path.equals("/")) {
            listed.remove(ZkPaths.parent(path));
        }
    }

    /** The ops of a multi that committed: created and overwritten nodes exist, deleted ones do not. */
    void applied(List<Op> ops) {
        for (Op op : ops) {
            switch (op.getType()) {
                case OpCode.create, OpCode.setData -> present(op.getPath());
                case OpCode.delete -> absent(op.getPath());
                default -> { } // check: changes nothing
            }
        }
    }

    void clear() {
        known.clear();
        listed.clear();
    }

    int size() {
        return known.size();
    }

    private Map<String, Boolean> below(String path) {
        return known.subMap(path + "/", true, path + "0", false);
    }

    private void dropBelow(String path) {
        below(path).clear();
        listed.subSet(path + "/", path + "0").clear();
        listed.remove(path);
    }

    private void bound() {
        if (known.size() >= ENTRIES_MAX) {
            clear();
        }
    }

    /** Only the coordinator's part of the tree is planned from this; the fixed ancestors always exist. */
    private static boolean relevant(String path) {
        return path.startsWith(ZkPaths.GROUPS + "/") || path.equals(ZkPaths.GROUPS)
                || path.equals(ZkPaths.CONSUMERS);
    }
}
