package shepherd.coordination.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent.ZkWriteFailed;
import shepherd.coordination.GroupSnapshot;
import shepherd.coordination.ZkOp;

/**
 * The coordinator's fenced writes (DESIGN §4): per group at most one multi in flight, ops queued meanwhile compacted
 * by the znode they write and sent together in the next one, callbacks run once everything queued before them has
 * committed (or definitely failed). The mirror of a group's subtree changes only when a write of ours commits.
 *
 * <p>A multi whose answer was lost either committed whole or not at all. Only we write a group's subtree and only
 * one write of the group is ever outstanding, so reading the group back tells which: if every op is reflected, it
 * committed (or was a no-op, which is as good); otherwise it did not, and it is sent again. Re-sending blindly would
 * be wrong: the first attempt may have committed, and the group's owners may no longer be those the second
 * attempt's offsets were reported under: a Stop's offsets would land after the next generation's owners.
 */
final class WritePipeline {
    /** What the pipeline needs of its coordinator. */
    interface Host {
        void emit(CoordinatorEffect effect);

        int epoch();

        boolean fenced();

        /** Read the group back to resolve an unknown outcome; the answer comes to {@link #resolve}. */
        void readBack(GroupState g);

        /** Everything queued before {@code next} in {@code g}'s pipeline committed ({@code ok}) or failed. */
        void resume(GroupState g, AfterWrite next, boolean ok);
    }

    private final Host host;
    private final Map<Long, GroupState> inFlight = new HashMap<>();
    private final Set<GroupState> toRetry = new LinkedHashSet<>();
    /** The handover record is not a group's; it has a pipeline of its own. */
    final GroupState handover = new GroupState("", "");
    private long nextWriteId = 1;

    WritePipeline(Host host) {
        this.host = host;
    }

    void clear() {
        inFlight.clear();
        toRetry.clear();
        handover.inFlight = null;
        handover.queued.clear();
        handover.queuedCallbacks.clear();
    }

    /** Resumes {@code callback} once everything queued for the group so far has committed (or definitely failed). */
    void afterWrite(GroupState g, AfterWrite callback) {
        afterWrite(g, callback, true);
    }

    /** {@link #afterWrite}, sending the queued ops now only if {@code flush}; else with the group's next write. */
    void afterWrite(GroupState g, AfterWrite callback, boolean flush) {
        g.queuedCallbacks.add(callback);
        if (flush) {
            flush(g);
        }
    }

    /** Sends the queued ops of the group as one fenced multi, unless one is in flight. */
    void flush(GroupState g) {
        if (g.inFlight != null || (g.queued.isEmpty() && g.queuedCallbacks.isEmpty())) {
            return;
        }
        if (g.queued.isEmpty()) {
            List<AfterWrite> callbacks = new ArrayList<>(g.queuedCallbacks);
            g.queuedCallbacks.clear();
            callbacks.forEach(c -> host.resume(g, c, true)); // nothing to write: already durable
            return;
        }
        GroupState.Write w = new GroupState.Write(nextWriteId++, new ArrayList<>(g.queued.values()),
                new ArrayList<>(g.queuedCallbacks));
        g.queued.clear();
        g.queuedCallbacks.clear();
        send(g, w);
    }

    /** The multi {@code writeId} committed ({@code ok}) or was refused. */
    void finished(long writeId, boolean ok) {
        GroupState g = inFlight.remove(writeId);
        if (g == null || g.inFlight == null || g.inFlight.writeId != writeId) {
            return;
        }
        GroupState.Write w = g.inFlight;
        g.inFlight = null;
        if (ok) {
            applyToMirror(g, w.ops);
        }
        w.callbacks.forEach(c -> host.resume(g, c, ok));
        if (g != handover) {
            flush(g);
        }
    }

    /**
     * A connection loss (unknown outcome): resolved once ZooKeeper is back ({@link #retry}). Any other refusal
     * fails the write's callbacks; the group is read back so the mirror learns what the tree really holds.
     */
    void failed(ZkWriteFailed failed) {
        GroupState g = inFlight.get(failed.writeId());
        if (g == null) {
            return;
        }
        if (failed.unknownOutcome()) {
            inFlight.remove(failed.writeId());
            g.resolving = g != handover;
            toRetry.add(g);
            return;
        }
        host.emit(new CoordinatorEffect.Notice("group '" + g.id + "': write " + failed.writeId() + " refused: "
                + failed.reason()));
        finished(failed.writeId(), false);
        if (g != handover) {
            host.readBack(g);
        }
    }

    /** ZooKeeper is back: read back each write of unknown outcome (the handover record is simply re-sent). */
    void retry() {
        List<GroupState> retry = new ArrayList<>(toRetry);
        toRetry.clear();
        for (GroupState g : retry) {
            if (g.inFlight == null) {
                continue;
            }
            if (g != handover) {
                host.readBack(g);
            } else {
                send(g, new GroupState.Write(nextWriteId++, g.inFlight.ops, g.inFlight.callbacks));
            }
        }
    }

    /** The read-back of a group whose write's outcome was unknown. */
    void resolve(GroupState g, GroupSnapshot snapshot) {
        g.resolving = false;
        GroupState.Write w = g.inFlight;
        if (w == null) {
            return;
        }
        if (reflected(snapshot, w.ops)) {
            inFlight.put(w.writeId, g);
            finished(w.writeId, true);
            return;
        }
        send(g, new GroupState.Write(nextWriteId++, w.ops, w.callbacks));
    }

    private void send(GroupState g, GroupState.Write w) {
        g.inFlight = w;
        inFlight.put(w.writeId, g);
        host.emit(new CoordinatorEffect.Write(w.writeId, host.epoch(), host.fenced(), w.ops));
    }

    static boolean reflected(GroupSnapshot s, List<ZkOp> ops) {
        return ops.stream().allMatch(op -> op.reflectedIn(s));
    }

    private static void applyToMirror(GroupState g, List<ZkOp> ops) {
        ZkOp.Mirror mirror = g.mirror();
        ops.forEach(op -> op.applyTo(mirror));
    }
}
