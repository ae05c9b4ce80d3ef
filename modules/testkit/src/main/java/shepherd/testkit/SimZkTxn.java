package shepherd.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Applies changes to the {@link SimZkDataTree} in place with an undo log, so a multi is validated against its own
 * earlier ops (create {@code /a} then {@code /a/b}) and still commits all or nothing under a single zxid.
 */
final class SimZkTxn {
    private final SimZkDataTree tree;
    private final long sessionId;
    private final long zxid;
    private final List<SimZkApplied> changes = new ArrayList<>();
    private final List<Runnable> undo = new ArrayList<>();
    private final List<Map.Entry<String, SimZkWatchEvent.Type>> triggers = new ArrayList<>();

    SimZkTxn(SimZkDataTree tree, long sessionId) {
        this.tree = tree;
        this.sessionId = sessionId;
        this.zxid = tree.lastZxid() + 1;
    }

    /** One op of a multi; {@code owner} owns the node if the op creates an ephemeral. */
    SimZkCode apply(SimZkOp op, long owner) {
        if (op instanceof SimZkOp.Check check) {
            SimZkDataNode node = tree.get(check.path());
            if (node == null) {
                return SimZkCode.NO_NODE;
            }
            return versionMatches(node, check.version()) ? SimZkCode.OK : SimZkCode.BAD_VERSION;
        } else if (op instanceof SimZkOp.Create create) {
            return create(create.path(), create.data(), create.ephemeral() ? owner : 0);
        } else if (op instanceof SimZkOp.SetData set) {
            return setData(set.path(), set.data(), set.version());
        } else if (op instanceof SimZkOp.Delete delete) {
            return delete(delete.path(), delete.version());
        }
        throw new AssertionError(op);
    }

    /** {@code owner} 0 makes a persistent node. */
    SimZkCode create(String path, Object data, long owner) {
        if (path.equals("/")) {
            return SimZkCode.NODE_EXISTS;
        }
        SimZkDataNode parent = tree.get(SimZkPaths.parentOf(path));
        if (parent == null) {
            return SimZkCode.NO_NODE;
        }
        if (tree.contains(path)) {
            return SimZkCode.NODE_EXISTS;
        }
        if (parent.ephemeralOwner != 0) {
            return SimZkCode.NO_CHILDREN_FOR_EPHEMERALS;
        }
        SimZkDataNode node = new SimZkDataNode(path, data, zxid, owner);
        String name = SimZkPaths.nameOf(path);
        tree.put(node);
        parent.children.add(name);
        parent.cversion++;
        undo.add(() -> {
            tree.remove(node);
            parent.children.remove(name);
            parent.cversion--;
        });
        changes.add(new SimZkApplied(path, SimZkApplied.Kind.CREATED, null, data, 0));
        triggers.add(Map.entry(path, SimZkWatchEvent.Type.NODE_CREATED));
        triggers.add(Map.entry(SimZkPaths.parentOf(path), SimZkWatchEvent.Type.NODE_CHILDREN_CHANGED));
        return SimZkCode.OK;
    }

    SimZkCode setData(String path, Object data, int expectedVersion) {
        SimZkDataNode node = tree.get(path);
        if (node == null) {
            return SimZkCode.NO_NODE;
        }
        if (!versionMatches(node, expectedVersion)) {
            return SimZkCode.BAD_VERSION;
        }
        Object oldData = node.data;
        long oldMzxid = node.mzxid;
        node.data = data;
        node.version++;
        node.mzxid = zxid;
        undo.add(() -> {
            node.data = oldData;
            node.version--;
            node.mzxid = oldMzxid;
        });
        changes.add(new SimZkApplied(path, SimZkApplied.Kind.DATA_SET, oldData, data, node.version));
        triggers.add(Map.entry(path, SimZkWatchEvent.Type.NODE_DATA_CHANGED));
        return SimZkCode.OK;
    }

    SimZkCode delete(String path, int expectedVersion) {
        SimZkDataNode node = tree.get(path);
        if (node == null) {
            return SimZkCode.NO_NODE;
        }
        if (!versionMatches(node, expectedVersion)) {
            return SimZkCode.BAD_VERSION;
        }
        if (!node.children.isEmpty()) {
            return SimZkCode.NOT_EMPTY;
        }
        SimZkDataNode parent = tree.get(SimZkPaths.parentOf(path));
        String name = SimZkPaths.nameOf(path);
        tree.remove(node);
        parent.children.remove(name);
        parent.cversion++;
        undo.add(() -> {
            tree.put(node);
            parent.children.add(name);
            parent.cversion--;
        });
        changes.add(new SimZkApplied(path, SimZkApplied.Kind.DELETED, node.data, null, -1));
        triggers.add(Map.entry(path, SimZkWatchEvent.Type.NODE_DELETED));
        triggers.add(Map.entry(SimZkPaths.parentOf(path), SimZkWatchEvent.Type.NODE_CHILDREN_CHANGED));
        return SimZkCode.OK;
    }

    void rollback() {
        for (int i = undo.size() - 1; i >= 0; i--) {
            undo.get(i).run();
        }
        undo.clear();
        changes.clear();
        triggers.clear();
    }

    /**
     * Commits unless there is nothing to record; {@code evenIfEmpty} records an empty commit all the same, as the end
     * of a session without ephemerals is, so that checkers see it.
     */
    void commit(boolean evenIfEmpty) {
        if (changes.isEmpty() && !evenIfEmpty) {
            return;
        }
        tree.commit(zxid, sessionId, changes, triggers);
    }

    private static boolean versionMatches(SimZkDataNode node, int expectedVersion) {
        return expectedVersion == -1 || expectedVersion == node.version;
    }
}
