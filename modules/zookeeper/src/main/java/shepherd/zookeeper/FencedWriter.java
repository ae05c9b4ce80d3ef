package shepherd.zookeeper;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent;

/**
 * Executes {@link CoordinatorEffect.Write}s: probes the nodes a write touches, lets {@link WritePlanner} build the
 * fenced multis, issues them and maps the results to ZkWriteDone / ZkWriteFenced / ZkWriteFailed. While a write's
 * probes are out, every later effect waits, so each write's probes see every earlier multi of the session and every
 * later read sees the write (ZooKeeper answers one session's requests in order). Runs on the adapter's thread.
 */
final class FencedWriter {
    private final ZooKeeperAdapter adapter;
    /** Effects that arrived while a write was being prepared, in order; they run once its multis are issued. */
    private final ArrayDeque<Runnable> deferred = new ArrayDeque<>();
    private boolean preparing;

    FencedWriter(ZooKeeperAdapter adapter) {
        this.adapter = adapter;
    }

    /**
     * True while a write's probes are out. Every later effect — write, read, keep-alive, election — waits until
     * the write's multis are issued: the core's effects reach ZooKeeper in list order, so a read after a write sees
     * it, as it would had the multi gone out at once.
     */
    boolean busy() {
        return preparing;
    }

    void defer(Runnable effect) {
        deferred.add(effect);
    }

    /** Effects deferred in an ended session are moot: the core forgets them on ZkExpired. */
    void reset() {
        deferred.clear();
        preparing = false;
    }

    /** Probes the paths the write touches, then issues its multis. */
    void write(ZkSession s, CoordinatorEffect.Write w) {
        preparing = true;
        long sentAtMs = adapter.now();
        Set<String> probes = WritePlanner.probes(w.ops());
        Map<String, Boolean> exists = new HashMap<>();
        int[] pending = {probes.size()};
        boolean[] failed = {false};
        if (probes.isEmpty()) {
            issueWrite(s, w, exists, sentAtMs);
            return;
        }
        for (String path : probes) {
            s.zk.exists(path, false, (rc, p, ctx, stat) -> adapter.post(s, () -> {
                Code code = Code.get(rc);
                if (failed[0]) {
                    return;
                }
                if (code != Code.OK && code != Code.NONODE) {
                    failed[0] = true;
                    // Nothing was written; reported as unknown so the core resolves it by reading back and resends.
                    adapter.emit(new CoordinatorEvent.ZkWriteFailed(w.writeId(), true,
                            code + " while probing " + path));
                    prepared();
                    return;
                }
                exists.put(path, code == Code.OK);
                if (--pending[0] == 0) {
                    issueWrite(s, w, exists, sentAtMs);
                }
            }), null);
        }
    }

    /** Runs the deferred effects in order until one of them starts preparing a write again. */
    private void prepared() {
        preparing = false;
        while (!preparing && !deferred.isEmpty()) {
            deferred.poll().run();
        }
    }

    private void issueWrite(ZkSession s, CoordinatorEffect.Write w, Map<String, Boolean> exists, long sentAtMs) {
        List<List<Op>> parts = WritePlanner.plan(w, adapter.config().brokerId(),
                path -> exists.getOrDefault(path, false), adapter.config().multiBytesMax());
        int[] committed = {0};
        boolean[] answered = {false};
        for (int i = 0; i < parts.size(); i++) {
            List<Op> part = parts.get(i);
            s.zk.multi(part, (rc, p, ctx, results) -> adapter.post(s, () -> {
                if (answered[0]) {
                    return;
                }
                Code code = Code.get(rc);
                if (code == Code.OK) {
                    if (++committed[0] == parts.size()) {
                        answered[0] = true;
                        adapter.emit(new CoordinatorEvent.ZkWriteDone(w.writeId(), sentAtMs));
                    }
                    return;
                }
                answered[0] = true;
                adapter.emit(writeFailure(w, part, code, failedIndex(results), committed[0] > 0, sentAtMs));
            }), null);
        }
        // ZooKeeper applies this session's requests in order: whatever is sent next sees these multis.
        prepared();
    }

    private static int failedIndex(List<OpResult> results) {
        if (results == null) {
            return -1;
        }
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.ErrorResult e && e.getErr() != Code.OK.intValue()) {
                return i;
            }
        }
        return -1;
    }

    private static CoordinatorEvent writeFailure(CoordinatorEffect.Write w, List<Op> part, Code code, int index,
            boolean partlyCommitted, long sentAtMs) {
        if (w.fenced() && index == 0 && (code == Code.BADVERSION || code == Code.NONODE)) {
            return new CoordinatorEvent.ZkWriteFenced(w.writeId(), sentAtMs);
        }
        if (code == Code.CONNECTIONLOSS || code == Code.SESSIONEXPIRED) {
            return new CoordinatorEvent.ZkWriteFailed(w.writeId(), true, code.toString());
        }
        String where = index >= 0 && index < part.size() ? " at op " + index + " (" + part.get(index).getPath() + ")"
                : "";
        // An earlier part committed: the tree holds part of the write, which the core must resolve by reading back.
        return new CoordinatorEvent.ZkWriteFailed(w.writeId(), partlyCommitted, code + where);
    }
}
