package shepherd.zookeeper;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent;

/**
 * Executes {@link CoordinatorEffect.Write}s: learns which of the nodes a write touches exist, lets
 * {@link WritePlanner} build the fenced multis, issues them and maps the results to ZkWriteDone / ZkWriteFenced /
 * ZkWriteFailed. Runs on the adapter's thread.
 *
 * <p><b>Existence from what the session knows, probes only for the rest.</b> ZooKeeper's multi has no create-or-
 * overwrite, so each op must be planned as create or setData. {@link KnownNodes} holds what this session's reads,
 * probes and committed multis showed; only paths it knows nothing about are probed ({@code exists}). In steady state
 * a rebalance's owners write is then one multi and no probe, instead of one probe per owner node.
 *
 * <p><b>Order.</b> Every later effect — write, read, keep-alive, election — waits while a write is being prepared:
 * while its probes are out and, when any op was planned from {@link KnownNodes}, until its multis are answered. So
 * the core's effects reach ZooKeeper in list order (a read after a write sees it), and a write planned on a stale
 * fact can be repaired before anything behind it leaves:
 * <ol>
 *   <li>the multi fails with NodeExists or NoNode at an op after the epoch check (a node someone else created or
 *       deleted: {@code shepherd offsets reset}); a multi is atomic, so nothing of it was applied;</li>
 *   <li>the writer stops trusting what it knew of those nodes, probes all of them, re-plans and sends it again — the
 *       session sent nothing in between, so this is exactly the multi a probing writer would have sent first.</li>
 * </ol>
 * Only a write none of whose parts committed is repaired so; a split write one of whose parts did commit is reported
 * as of unknown outcome, and the core reads the group back (a re-send is never blind: docs/verification.md §9). The
 * epoch check stays op 0 of every multi, so a stale epoch is refused at op 0 (BadVersion) whatever the plan was.
 */
final class FencedWriter {
    private final ZooKeeperAdapter adapter;
    /** Where the outcomes go: the adapter's sink, or the warm-up's rehearsal. */
    private final Consumer<CoordinatorEvent> out;
    private final KnownNodes known = new KnownNodes();
    /** {@code exists} probes sent, over the adapter's life: for tests and benchmarks. */
    private final AtomicLong probesSent = new AtomicLong();
    /** Effects that arrived while a write was being prepared, in order; they run once it is out of the way. */
    private final ArrayDeque<Runnable> deferred = new ArrayDeque<>();
    private boolean preparing;

    FencedWriter(ZooKeeperAdapter adapter) {
        this(adapter, adapter::emit);
    }

    /** A writer of its own, reporting to {@code out}: the warm-up's rehearsal of a write that is always refused. */
    FencedWriter(ZooKeeperAdapter adapter, Consumer<CoordinatorEvent> out) {
        this.adapter = adapter;
        this.out = out;
    }

    /**
     * True while a write is being prepared (see the class comment). Every later effect waits until it is not: the
     * core's effects reach ZooKeeper in list order, so a read after a write sees it.
     */
    boolean busy() {
        return preparing;
    }

    void defer(Runnable effect) {
        deferred.add(effect);
    }

    /** What this session knows exists; reads record into it. */
    KnownNodes known() {
        return known;
    }

    long probesSent() {
        return probesSent.get();
    }

    /** Effects deferred in an ended session are moot: the core forgets them on ZkExpired. */
    void reset() {
        deferred.clear();
        preparing = false;
        known.clear();
    }

    /** Plans the write from what is known, probing the paths nothing is known about, then issues its multis. */
    void write(ZkSession s, CoordinatorEffect.Write w) {
        preparing = true;
        long sentAtMs = adapter.now();
        Map<String, Boolean> exists = new HashMap<>();
        Set<String> unknown = new LinkedHashSet<>();
        List<String> targets = WritePlanner.targets(w.ops());
        for (String path : WritePlanner.probes(targets)) {
            Boolean fact = known.exists(path);
            if (fact == null) {
                unknown.add(path);
            } else {
                exists.put(path, fact);
            }
        }
        boolean fromKnowledge = !exists.isEmpty();
        probe(s, w, unknown, exists, () -> issueWrite(s, w, targets, exists, sentAtMs, fromKnowledge));
    }

    /** Probes {@code paths} into {@code exists}, then runs {@code then}; a failed probe fails the write. */
    private void probe(ZkSession s, CoordinatorEffect.Write w, Set<String> paths, Map<String, Boolean> exists,
            Runnable then) {
        if (paths.isEmpty()) {
            then.run();
            return;
        }
        int[] pending = {paths.size()};
        boolean[] failed = {false};
        probesSent.addAndGet(paths.size());
        for (String path : paths) {
            s.zk.exists(path, false, (rc, p, ctx, stat) -> adapter.answered(s, rc, () -> {
                Code code = Code.get(rc);
                if (failed[0]) {
                    return;
                }
                if (code != Code.OK && code != Code.NONODE) {
                    failed[0] = true;
                    // Nothing was written; reported as unknown so the core resolves it by reading back and resends.
                    out.accept(new CoordinatorEvent.ZkWriteFailed(w.writeId(), true,
                            code + " while probing " + path));
                    prepared();
                    return;
                }
                exists.put(path, code == Code.OK);
                if (code == Code.OK) {
                    known.present(path);
                } else {
                    known.absent(path);
                }
                if (--pending[0] == 0) {
                    then.run();
                }
            }));
        }
    }

    /** Runs the deferred effects in order until one of them starts preparing a write again. */
    private void prepared() {
        preparing = false;
        while (!preparing && !deferred.isEmpty()) {
            deferred.poll().run();
        }
    }

    /**
     * Issues the planned multis. Planned from probes alone, later effects may go as soon as the multis are sent (they
     * see them: one session, one order). Planned partly from {@link KnownNodes}, later effects wait for the answers,
     * so that a plan built on a stale fact can be repaired first.
     */
    private void issueWrite(ZkSession s, CoordinatorEffect.Write w, List<String> targets,
            Map<String, Boolean> exists, long sentAtMs, boolean fromKnowledge) {
        List<List<Op>> parts = WritePlanner.plan(w, targets, adapter.config().brokerId(),
                path -> exists.getOrDefault(path, false), adapter.config().multiBytesMax());
        Attempt attempt = new Attempt(w, targets, parts, sentAtMs, fromKnowledge);
        for (int i = 0; i < parts.size(); i++) {
            int index = i;
            s.zk.multi(parts.get(i), (rc, p, ctx, results) -> adapter.answered(s, rc,
                    () -> answered(s, attempt, index, Code.get(rc), results)));
        }
        if (!fromKnowledge) {
            // ZooKeeper applies this session's requests in order: whatever is sent next sees these multis.
            prepared();
        }
    }

    /** One issue of a write: its parts and what their answers said so far. */
    private static final class Attempt {
        final CoordinatorEffect.Write write;
        /** The write's {@link WritePlanner#targets}, kept for a {@link #reprobe}. */
        final List<String> targets;
        final List<List<Op>> parts;
        final long sentAtMs;
        final boolean fromKnowledge;
        int answers;
        int committed;
        boolean reported;
        /** The first part that failed, in answer order (= part order: one session), and how. */
        int failedPart = -1;
        Code failedCode;
        int failedOp = -1;

        Attempt(CoordinatorEffect.Write write, List<String> targets, List<List<Op>> parts, long sentAtMs,
                boolean fromKnowledge) {
            this.write = write;
            this.targets = targets;
            this.parts = parts;
            this.sentAtMs = sentAtMs;
            this.fromKnowledge = fromKnowledge;
        }
    }

    private void answered(ZkSession s, Attempt a, int part, Code code, List<OpResult> results) {
        a.answers++;
        if (code == Code.OK) {
            a.committed++;
            known.applied(a.parts.get(part));
        } else {
            int op = failedIndex(results);
            learnFromFailure(a, part, code, op);
            if (a.failedPart < 0) {
                a.failedPart = part;
                a.failedCode = code;
                a.failedOp = op;
            }
        }
        if (!a.fromKnowledge) {
            reportEarly(a);
            return;
        }
        if (a.answers < a.parts.size()) {
            return;
        }
        if (a.failedPart < 0) {
            out.accept(new CoordinatorEvent.ZkWriteDone(a.write.writeId(), a.sentAtMs));
        } else if (a.committed == 0 && wrongExistence(a.write, a.failedCode, a.failedOp)) {
            reprobe(s, a);
            return;
        } else {
            out.accept(writeFailure(a.write, a.parts.get(a.failedPart), a.failedCode, a.failedOp,
                    a.committed > 0, a.sentAtMs));
        }
        prepared();
    }

    /** A write planned from probes alone reports as its answers come, as it always did. */
    private void reportEarly(Attempt a) {
        if (a.reported) {
            return;
        }
        if (a.failedPart >= 0) {
            a.reported = true;
            boolean partlyCommitted = a.committed > 0;
            out.accept(writeFailure(a.write, a.parts.get(a.failedPart), a.failedCode, a.failedOp, partlyCommitted,
                    a.sentAtMs));
        } else if (a.committed == a.parts.size()) {
            a.reported = true;
            out.accept(new CoordinatorEvent.ZkWriteDone(a.write.writeId(), a.sentAtMs));
        }
    }

    /**
     * Steps 1–2 of the class comment: nothing of the write was applied and later effects are still held, so the write
     * is planned again from probes of every path it touches and sent as if for the first time.
     */
    private void reprobe(ZkSession s, Attempt a) {
        Set<String> paths = WritePlanner.probes(a.targets);
        Map<String, Boolean> exists = new HashMap<>();
        probe(s, a.write, paths, exists, () -> issueWrite(s, a.write, a.targets, exists, a.sentAtMs, false));
    }

    /**
     * A failed part's ops were not applied, or (connection loss) may have been: either way what the session knew of
     * their nodes is in doubt. A part refused at its epoch check means another coordinator may have written since:
     * everything is forgotten.
     */
    private void learnFromFailure(Attempt a, int part, Code code, int failedOp) {
        if (a.write.fenced() && failedOp == 0 && (code == Code.BADVERSION || code == Code.NONODE)) {
            known.clear();
            return;
        }
        for (Op op : a.parts.get(part)) {
            if (!op.getPath().equals(ZkPaths.EPOCH)) {
                known.doubt(op.getPath());
            }
        }
    }

    /** NodeExists or NoNode at an op after the epoch check: a create/setData/delete planned on a wrong fact. */
    static boolean wrongExistence(CoordinatorEffect.Write w, Code code, int failedOp) {
        int firstPlanned = w.fenced() ? 1 : 0;
        return (code == Code.NODEEXISTS || code == Code.NONODE) && failedOp >= firstPlanned;
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
        if (code == Code.CONNECTIONLOSS) {
            return new CoordinatorEvent.ZkWriteFailed(w.writeId(), true, code.toString());
        }
        String where = index >= 0 && index < part.size() ? " at op " + index + " (" + part.get(index).getPath() + ")"
                : "";
        // An earlier part committed: the tree holds part of the write, which the core must resolve by reading back.
        return new CoordinatorEvent.ZkWriteFailed(w.writeId(), partlyCommitted, code + where);
    }
}
