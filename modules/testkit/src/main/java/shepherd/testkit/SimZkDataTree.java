package shepherd.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The server's tree and its commit log: the znodes, the ephemerals each session owns, the zxid of the latest commit,
 * and the listeners that see every commit. Every change goes through a {@link SimZkTxn}, which commits here.
 */
final class SimZkDataTree {
    private final Scheduler scheduler;
    private final SimZkWatches watches;
    private final Map<String, SimZkDataNode> nodes = new HashMap<>();
    /** By owning session, sorted, so a session's end deletes its ephemerals in path order. */
    private final Map<Long, TreeSet<String>> ephemerals = new HashMap<>();
    private final List<Consumer<SimZkCommit>> commitListeners = new ArrayList<>();
    private long lastZxid;

    SimZkDataTree(Scheduler scheduler, SimZkWatches watches) {
        this.scheduler = scheduler;
        this.watches = watches;
        nodes.put("/", new SimZkDataNode("/", null, 0, 0));
    }

    /** Null when there is no such node. */
    SimZkDataNode get(String path) {
        return nodes.get(path);
    }

    boolean contains(String path) {
        return nodes.containsKey(path);
    }

    long lastZxid() {
        return lastZxid;
    }

    void onCommit(Consumer<SimZkCommit> listener) {
        commitListeners.add(listener);
    }

    /** A transaction of {@code sessionId} (0 for the admin API), to take the next zxid if it commits. */
    SimZkTxn begin(long sessionId) {
        return new SimZkTxn(this, sessionId);
    }

    List<String> ephemeralsOf(long sessionId) {
        TreeSet<String> owned = ephemerals.get(sessionId);
        return owned == null ? List.of() : new ArrayList<>(owned);
    }

    // ---------------------------------------------------------------- for SimZkTxn

    void put(SimZkDataNode node) {
        nodes.put(node.path, node);
        if (node.ephemeralOwner != 0) {
            ephemerals.computeIfAbsent(node.ephemeralOwner, owner -> new TreeSet<>()).add(node.path);
        }
    }

    void remove(SimZkDataNode node) {
        nodes.remove(node.path);
        if (node.ephemeralOwner != 0) {
            ephemerals.get(node.ephemeralOwner).remove(node.path);
        }
    }

    /** Takes the zxid, tells the commit listeners, then fires the watches the changes trigger. */
    void commit(long zxid, long sessionId, List<SimZkApplied> changes,
            List<Map.Entry<String, SimZkWatchEvent.Type>> triggers) {
        lastZxid = zxid;
        SimZkCommit commit = new SimZkCommit(zxid, sessionId, scheduler.nowMs(), changes);
        for (Consumer<SimZkCommit> listener : List.copyOf(commitListeners)) {
            listener.accept(commit);
        }
        for (Map.Entry<String, SimZkWatchEvent.Type> t : triggers) {
            watches.trigger(t.getKey(), t.getValue());
        }
    }
}
