package shepherd.coordination.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import shepherd.coordination.GroupView;
import shepherd.coordination.TriggerState;
import shepherd.coordination.ZkOp;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;

/**
 * One group as the coordinator holds it: members, the mirror of its ZooKeeper subtree (only ever changed when a
 * write of ours commits, save the offsets of a group that has been empty, replaced by a re-read: {@link
 * #offsetsStale}), its trigger, its run and its write pipeline.
 *
 * <p>Writes of one group go out one at a time: a write whose outcome is unknown is retried as it was before any
 * later one leaves, so an older offset can never overwrite a newer one (FencedWrites, never backwards).
 */
public final class GroupState {

    static final class Write {
        final long writeId;
        final List<ZkOp> ops;
        final List<AfterWrite> callbacks;

        /** The offset each of {@link #ops}' PutOffsets writes, by partition; built on first use. */
        private Map<TopicPartition, Long> putOffsets;

        Write(long writeId, List<ZkOp> ops, List<AfterWrite> callbacks) {
            this.writeId = writeId;
            this.ops = ops;
            this.callbacks = callbacks;
        }

        /**
         * The highest offset this write puts for {@code tp}, or {@code Long.MIN_VALUE}. Indexed once per write: a
         * scan of the ops per reported partition cost a Stop round a product of two partition counts.
         */
        long putOffset(TopicPartition tp) {
            if (putOffsets == null) {
                putOffsets = new HashMap<>();
                for (ZkOp op : ops) {
                    if (op instanceof ZkOp.PutOffset p) {
                        putOffsets.merge(p.partition(), p.offset(), Math::max);
                    }
                }
            }
            return putOffsets.getOrDefault(tp, Long.MIN_VALUE);
        }
    }

    final String id;
    String assignor;
    int generation;
    final TreeMap<String, Member> members = new TreeMap<>();
    TreeMap<TopicPartition, StreamId> owners = new TreeMap<>();
    final TreeMap<TopicPartition, Long> offsets = new TreeMap<>();
    /**
     * {@link #offsets} may be older than ZooKeeper's: the group has had no member since they were read, and while
     * it has none an operator may reset them ({@code shepherd offsets reset}). No run begins until a read issued
     * after the group has members again has answered ({@code Rebalance.reloadOffsets}).
     */
    boolean offsetsStale;
    /** The read that ends {@link #offsetsStale} has been issued (with no older read of the group outstanding). */
    boolean reloadIssued;
    /** Consumers we can no longer command whose lease may still run: consumer id → when it is surely over. */
    final TreeMap<String, Long> fencedUntil = new TreeMap<>();
    TriggerState trigger = TriggerState.IDLE;
    Run run;
    int failedRuns;

    Write inFlight;
    /** The outcome of {@link #inFlight} is unknown; a read-back will tell. */
    boolean resolving;
    /** Ops waiting for the write in flight, compacted by the node they write. */
    final Map<ZkOp.Node, ZkOp> queued = new LinkedHashMap<>();
    final List<AfterWrite> queuedCallbacks = new ArrayList<>();

    GroupState(String id, String assignor) {
        this.id = id;
        this.assignor = assignor;
    }

    /**
     * {@link GroupView#stable()} of this group, without the view's copy of its owners and offsets: every member
     * connected and started in the current generation, no run in flight and no trigger pending.
     */
    boolean stable() {
        if (run != null || trigger != TriggerState.IDLE) {
            return false;
        }
        for (Member m : members.values()) {
            if (!m.connected() || m.startedGeneration != generation) {
                return false;
            }
        }
        return true;
    }

    void queue(ZkOp op) {
        ZkOp.Node key = op.node();
        ZkOp previous = queued.remove(key);
        if (op instanceof ZkOp.PutOffset put && previous instanceof ZkOp.PutOffset old && old.offset() > put.offset()) {
            op = old; // two reports of one partition in one batch: the newer position wins
        }
        queued.put(key, op);
    }

    /**
     * The offset a new report must exceed to be written: the committed one, or a higher one already on its way (a
     * reordered or retried report must never overwrite a newer one that has not committed yet).
     */
    long offsetFloor(TopicPartition tp) {
        long floor = offsets.getOrDefault(tp, Long.MIN_VALUE);
        if (inFlight != null) {
            floor = Math.max(floor, inFlight.putOffset(tp));
        }
        if (queued.get(ZkOp.Node.offset(tp)) instanceof ZkOp.PutOffset p) {
            floor = Math.max(floor, p.offset());
        }
        return floor;
    }

    /** Nothing queued and nothing in flight: a read issued now sees every write of ours to the group. */
    boolean writesDrained() {
        return inFlight == null && queued.isEmpty();
    }

    /**
     * A new generation's owners write is queued or in flight: the mirror's owners may be about to be replaced. (Its
     * generation op counts even when no owner changes, so the window is the same whatever the write carries.)
     */
    boolean ownersChanging() {
        return inFlight != null && inFlight.ops.stream().anyMatch(GroupState::isOwnersWriteOp)
                || queued.values().stream().anyMatch(GroupState::isOwnersWriteOp);
    }

    private static boolean isOwnersWriteOp(ZkOp op) {
        return op instanceof ZkOp.PutOwner || op instanceof ZkOp.DeleteOwner
                || op instanceof ZkOp.PutGroup p && p.generation() > 0;
    }

    long fencedUntilMax() {
        return fencedUntil.values().stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE);
    }

    /** The mirror of the group's generation, owners and offsets, as a committed op changes it. */
    ZkOp.Mirror mirror() {
        return new ZkOp.Mirror() {
            @Override
            public void generation(int committed) {
                generation = committed;
            }

            @Override
            public Map<TopicPartition, StreamId> owners() {
                return owners;
            }

            @Override
            public Map<TopicPartition, Long> offsets() {
                return offsets;
            }
        };
    }
}
