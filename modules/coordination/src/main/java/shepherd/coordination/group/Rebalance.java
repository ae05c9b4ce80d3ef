package shepherd.coordination.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import shepherd.coordination.Coordinator.Role;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorTimer;
import shepherd.coordination.GroupSnapshot;
import shepherd.coordination.TriggerState;
import shepherd.coordination.ZkOp;
import shepherd.coordination.ZkRead;
import shepherd.coordination.assign.Assignment;
import shepherd.coordination.assign.AssignmentInput;
import shepherd.coordination.assign.Assignors;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.coordination.defect.Defect;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;

/**
 * A group's rebalance: the trigger (DESIGN §6, the dirty flag instead of the seed's dropping CAS, D1) and the run
 * (the seed's {@code rebalance(group)} with §6's barrier). A run goes
 * <pre>
 *   STOPPING ──every Stop answered──▶ LEASES ──every lease we could not stop is over──▶ WRITING
 *       ▲  └─round timed out: Stop again, or fail the member (D8)                          │ owners multi
 *       │                                                                                  ▼ committed
 *   (queued again if a change arrived meanwhile) ◀──every Start answered── STARTING ◀──────┘
 * </pre>
 * and any failure ends it with {@code false}, retried with backoff (D8). Start(g+1) leaves only after every
 * participant acknowledged Stop(g) and the lease of every member we could not stop is surely over
 * ({@link GroupState#fencedUntil}): BarrierSound.
 */
public final class Rebalance {
    /** The offset a Start carries for a partition without a committed offset: apply auto_offset_reset. */
    public static final long OFFSET_NONE = -1;

    private final Groups groups;
    private final Core core;

    Rebalance(Groups groups) {
        this.groups = groups;
        this.core = groups.core;
    }

    // ================================================================== the trigger ("try to request rebalance")

    /** The seed's "try to request rebalance", with the dirty flag instead of the dropping CAS (D1). */
    public void request(GroupState g) {
        switch (g.trigger) {
            case IDLE -> {
                g.trigger = g.trigger.transitionTo(TriggerState.QUEUED);
                drain(g);
            }
            case RUNNING -> markDirty(g);
            case QUEUED -> {
                if (g.offsetsStale) {
                    drain(g); // held back for a re-read that the change (a first member, the last one gone) may decide
                }
            }
            case RUNNING_DIRTY -> { }
        }
    }

    /** Queues the group for the end of the lease wait: its one run then (D9). */
    public void queue(GroupState g) {
        g.trigger = g.trigger.transitionTo(TriggerState.QUEUED);
    }

    void markDirty(GroupState g) {
        if (g.trigger == TriggerState.RUNNING && !core.defect(Defect.DROP_TRIGGERS)) {
            g.trigger = g.trigger.transitionTo(TriggerState.RUNNING_DIRTY);
        }
    }

    /** Runs every queued group that may run now. */
    public void drainQueue() {
        if (core.role() != Role.ACTIVE) {
            return;
        }
        for (GroupState g : new ArrayList<>(groups.all.values())) {
            if (g.trigger == TriggerState.QUEUED) {
                drain(g);
            }
        }
    }

    /** The request handler: runs a queued group once we may command (groups run side by side). */
    void drain(GroupState g) {
        if (core.role() != Role.ACTIVE || g.trigger != TriggerState.QUEUED || !core.canCommand()) {
            return;
        }
        if (g.offsetsStale && !g.members.isEmpty()) {
            reloadOffsets(g); // the run would Start members with offsets an operator may have reset; reread drains
            return;
        }
        g.trigger = g.trigger.transitionTo(TriggerState.RUNNING);
        if (!begin(g)) {
            end(g, true);
        }
    }

    /** The retry timer of a failed run (D8). */
    public void retry(String group) {
        GroupState g = groups.all.get(group);
        if (g != null && core.role() == Role.ACTIVE) {
            request(g);
        }
    }

    // ================================================================== offsets of a group that has been empty

    /**
     * Re-reads a group that has been empty before its next run may Start anyone. While a group has no registration
     * in ZooKeeper, {@code shepherd offsets reset} may write its offsets (DESIGN §4); our mirror never sees that
     * write, and a Start with the mirror's offsets would silently undo the reset (or, for a lowered offset, skip the
     * records the operator wants replayed). So the mirror's offsets stop counting when the last member goes
     * ({@link Membership#remove}; a group loaded without members starts so), {@link #drain} holds back any run of a
     * group that has members again, and the answer of this read replaces the offsets ({@link #adoptOffsets}).
     *
     * <p>Which read counts. The reset is legal only before the group's first new registration reaches ZooKeeper,
     * so the read must be ordered after that registration; and an older read must not be taken for it:
     * <ol>
     *   <li>the last member leaves; our DeleteRegistration trips the member watch, and a read R1 goes out;</li>
     *   <li>R1 reads offset 500; the operator then resets it to 100;</li>
     *   <li>consumer c registers; its registration is written;</li>
     *   <li>R1's answer arrives: taking it for the re-read would Start c at 500, undoing the reset.</li>
     * </ol>
     * Hence: the read goes out only once the group's writes have drained (its registration committed or failed;
     * ZooKeeper answers one session's requests in order, so the read sees it) and only when no older read of the
     * group is outstanding; from then on every answer of a group read comes from a read issued after the
     * registration, so the first one ends the staleness ({@link GroupState#reloadIssued}). Counting answers in
     * order would not do: a group read is several requests, and two of them may finish in either order. A read
     * that fails is retried (later, so still after the registration) and counts the same. An election or a session
     * expiry forgets the group and reads it anew, which is as good. If the group empties again while the read is
     * out, the flag is cleared and the answer ignored: the next member needs a read after its own registration.
     *
     * <p>Invariants: offsets never move backwards because of our own reports — only an operator's value, read from
     * ZooKeeper, may lower them (FencedWrites keeps comparing reports with the adopted offsets); nobody is started
     * before the read, so ExclusiveOwnership and the barrier are untouched (the run that follows is an ordinary
     * one). Only the offsets are adopted: the generation, owners and assignor are written by coordinators alone,
     * fenced, so the mirror of them is exact.
     */
    void reloadOffsets(GroupState g) {
        if (!g.offsetsStale || g.reloadIssued || g.members.isEmpty() || groups.all.get(g.id) != g) {
            return;
        }
        if (!g.writesDrained()) {
            groups.writes.afterWrite(g, new AfterWrite.ReloadOffsets(g));
            return;
        }
        if (groups.reads.groupOutstanding(g.id)) {
            return; // its answer (Groups.reread) or failure (Groups.readFailed) calls again
        }
        g.reloadIssued = true;
        groups.reads.read(new ZkRead.Group(g.id));
    }

    /** The answer of {@link #reloadOffsets}'s read: ZooKeeper's offsets replace ours, an operator's reset included. */
    void adoptOffsets(GroupState g, GroupSnapshot snapshot) {
        if (!g.offsets.equals(snapshot.offsets())) {
            core.notice("group '" + g.id + "': offsets changed in ZooKeeper while the group was empty (an"
                    + " operator's reset); adopting " + snapshot.offsets());
        }
        g.offsets.clear();
        g.offsets.putAll(snapshot.offsets());
        g.offsetsStale = false;
        g.reloadIssued = false;
    }

    // ================================================================== the run

    /** Seed rebalance steps 1–3: compute, check necessity; step 4.1 when necessary. False: nothing to do. */
    private boolean begin(GroupState g) {
        List<Member> live = g.members.values().stream().filter(Member::connected).toList();
        Assignment target = assign(g, live);
        if (!necessary(g, target, live)) {
            return false;
        }
        Run run = new Run(g.generation);
        g.run = run;
        live.forEach(m -> run.participants.add(m.consumerId));
        // Members we cannot reach are not stopped by us: their leases are waited out.
        g.members.values().stream().filter(m -> !m.connected()).forEach(m -> groups.membership.fenceLease(g, m));
        for (Member m : live) {
            run.awaiting.put(groups.send(g, m, new StopRequest(core.epoch(), run.endingGeneration),
                    run.endingGeneration), m.consumerId);
        }
        core.setTimer(new CoordinatorTimer.Barrier(g.id), core.now() + core.config().stopTimeoutMs());
        advance(g);
        return true;
    }

    /**
     * Seed check 3.1–3.5, plus one the seed did not need: 3.6, a member that has not acknowledged a Start of the
     * current generation in this epoch fetches nothing (it re-registered, or the epoch is new) and must be started.
     */
    private boolean necessary(GroupState g, Assignment target, List<Member> live) {
        if (g.owners.isEmpty()) {
            return target.size() > 0 || live.stream().anyMatch(m -> m.startedGeneration != g.generation); // 3.1
        }
        for (TopicPartition tp : target.owners().keySet()) {
            if (!g.owners.containsKey(tp)) {
                return true; // 3.2
            }
        }
        for (TopicPartition tp : g.owners.keySet()) {
            if (!groups.topics.has(tp)) {
                return true; // 3.3
            }
        }
        if (!target.owners().equals(g.owners)) {
            return true; // 3.4
        }
        return live.stream().anyMatch(m -> m.startedGeneration != g.generation); // 3.6, else 3.5
    }

    /** Seed step 2: the assignment over the members that can take part. */
    private Assignment assign(GroupState g, Collection<Member> participants) {
        Map<String, Map<String, Integer>> streams = new TreeMap<>();
        for (Member m : participants) {
            streams.put(m.consumerId, Subscriptions.streamsByTopic(m.registration.subscription(),
                    groups.topics.names()));
        }
        Map<String, List<PartitionId>> partitions = new TreeMap<>();
        streams.values().forEach(s -> s.keySet().forEach(t -> {
            List<PartitionId> ps = groups.topics.of(t);
            if (ps != null) {
                partitions.put(t, ps);
            }
        }));
        Map<TopicPartition, StreamId> current = new TreeMap<>(g.owners);
        AssignmentInput input = AssignmentInput.fromSubscriptions(partitions, streams, current);
        Assignment assignment = Assignors.find(g.assignor).orElseGet(Assignors::defaultAssignor).assign(input);
        core.emit(new CoordinatorEffect.Assigned(g.id, input, assignment));
        return assignment;
    }

    /** Moves the run on as far as it can go now: one case per phase. */
    void advance(GroupState g) {
        Run run = g.run;
        if (run == null) {
            return;
        }
        switch (run.phase) {
            case STOPPING -> {
                // The Stop round is over once every participant answered (or dropped out).
                if (run.awaiting.isEmpty()) {
                    run.phase = Run.Phase.LEASES;
                    waitOutLeases(g, run);
                }
            }
            // Everyone stopped: the leases of those we could not stop must be surely over before any owner moves.
            case LEASES -> waitOutLeases(g, run);
            // The owners multi is in flight; its continuation (StartRun) moves the run on.
            case WRITING -> { }
            // The Start round is over once every participant answered.
            case STARTING -> {
                if (run.awaiting.isEmpty()) {
                    end(g, true);
                }
            }
        }
    }

    private void waitOutLeases(GroupState g, Run run) {
        g.fencedUntil.values().removeIf(until -> until <= core.now());
        if (!g.fencedUntil.isEmpty()) {
            core.setTimer(new CoordinatorTimer.Barrier(g.id), g.fencedUntilMax());
            return;
        }
        writeOwners(g, run);
    }

    /**
     * Seed step 4 between Stop and Start: one fenced multi with owners, generation and the Stop offsets. Only the
     * owner nodes whose stream changes are written (and those of partitions no longer assigned deleted): the multi is
     * atomic and leads with the epoch check, so after it the tree's owners are exactly the target's either way, and an
     * owner node's generation says when its stream was given the partition (docs/zookeeper-layout.md).
     */
    private void writeOwners(GroupState g, Run run) {
        run.phase = Run.Phase.WRITING;
        core.cancelTimer(new CoordinatorTimer.Barrier(g.id));
        List<Member> participants = run.participants.stream().map(g.members::get)
                .filter(m -> m != null && m.connected()).toList();
        run.target = assign(g, participants);
        g.queue(new ZkOp.PutGroup(g.id, run.newGeneration(), g.assignor));
        for (TopicPartition tp : g.owners.keySet()) {
            if (run.target.ownerOf(tp).isEmpty()) {
                g.queue(new ZkOp.DeleteOwner(g.id, tp));
            }
        }
        run.target.owners().forEach((tp, stream) -> {
            if (!stream.equals(g.owners.get(tp))) {
                g.queue(new ZkOp.PutOwner(g.id, tp, stream, run.newGeneration()));
            }
        });
        groups.writes.afterWrite(g, new AfterWrite.StartRun(run));
    }

    /** {@link AfterWrite.StartRun}: the owners multi of {@code run} committed ({@code ok}) or failed. */
    void ownersWritten(GroupState g, Run run, boolean ok) {
        if (g.run != run) {
            return;
        }
        if (!ok) {
            end(g, false);
            return;
        }
        core.emit(new CoordinatorEffect.GenerationReached(g.id, g.generation, List.copyOf(g.members.keySet())));
        sendStarts(g, run);
    }

    /** Seed 4.2–4.3: Start(g+1) to every participant with its share and offsets; wait for every answer. */
    private void sendStarts(GroupState g, Run run) {
        run.phase = Run.Phase.STARTING;
        if (!core.canCommand()) {
            end(g, false); // retried with backoff once commanding is possible again
            return;
        }
        SortedMap<String, SortedMap<TopicPartition, StreamId>> byConsumer = run.target.byConsumer();
        for (String consumerId : run.participants) {
            Member m = g.members.get(consumerId);
            if (m == null || !m.connected()) {
                continue;
            }
            List<PartitionAssignment> assigned = new ArrayList<>();
            byConsumer.getOrDefault(consumerId, new TreeMap<>()).forEach((tp, stream) -> assigned.add(
                    new PartitionAssignment(tp.topic(), tp.partition().toString(),
                            g.offsets.getOrDefault(tp, OFFSET_NONE), stream.n())));
            StartRequest start = new StartRequest(core.epoch(), run.newGeneration(), assigned);
            run.awaiting.put(groups.send(g, m, start, run.newGeneration()), consumerId);
        }
        core.setTimer(new CoordinatorTimer.Barrier(g.id), core.now() + core.config().startTimeoutMs());
        advance(g);
    }

    void stopAnswered(GroupState g, Member m, long requestId, StopResponse stop) {
        Run run = g.run;
        if (run == null || run.phase != Run.Phase.STOPPING || !run.awaiting.containsKey(requestId)) {
            return;
        }
        if (stop.errorCode() != ErrorCode.NONE) {
            return; // not stopped; the barrier deadline retries or fails it
        }
        run.awaiting.remove(requestId);
        m.barrierMisses = 0;
        if (stop.offsets() != null && m.startedGeneration == run.endingGeneration) {
            groups.membership.acceptOffsets(g, m, stop.offsets());
        }
        advance(g);
    }

    void startAnswered(GroupState g, Member m, long requestId, int generation, StartResponse start) {
        Run run = g.run;
        if (run == null || run.phase != Run.Phase.STARTING || !run.awaiting.containsKey(requestId)) {
            return;
        }
        if (start.errorCode() != ErrorCode.NONE) {
            core.notice("group '" + g.id + "': consumer '" + m.consumerId + "' refused Start(" + generation
                    + "): " + start.errorCode());
            end(g, false);
            return;
        }
        run.awaiting.remove(requestId);
        m.startedGeneration = generation;
        advance(g);
    }

    /** The barrier timer: a Stop round is over, the fenced leases are, or the Start round timed out. */
    public void barrierDue(String group) {
        GroupState g = groups.all.get(group);
        Run run = g == null ? null : g.run;
        if (run == null) {
            return;
        }
        switch (run.phase) {
            case STOPPING -> stopRoundOver(g, run);
            case LEASES -> advance(g);
            case STARTING -> end(g, false); // seed step 5: the wait timed out
            case WRITING -> { }
        }
    }

    /** Members that missed the Stop round: ask again, or declare them failed after barrierMissesMax rounds (D8). */
    private void stopRoundOver(GroupState g, Run run) {
        if (groups.heldForOwners.remove(g)) {
            groups.writes.flush(g); // a member is late: a Leave's answer does not wait for the retried Stops
        }
        if (!core.canCommand()) {
            core.setTimer(new CoordinatorTimer.Barrier(g.id), core.now() + core.config().stopTimeoutMs());
            return; // not their fault; try again when we may command
        }
        for (Map.Entry<Long, String> e : new ArrayList<>(run.awaiting.entrySet())) {
            run.awaiting.remove(e.getKey());
            groups.requests.remove(e.getKey());
            Member m = g.members.get(e.getValue());
            if (m == null) {
                continue;
            }
            if (++m.barrierMisses >= core.config().barrierMissesMax()) {
                groups.membership.remove(g, m, "missed " + m.barrierMisses + " Stop rounds");
                if (g.run != run) {
                    return;
                }
            } else if (m.connected()) {
                run.awaiting.put(groups.send(g, m, new StopRequest(core.epoch(), run.endingGeneration),
                        run.endingGeneration), m.consumerId);
            }
        }
        core.setTimer(new CoordinatorTimer.Barrier(g.id),
                core.now() + core.config().backoffMs(1 + maxMisses(g, run)) + core.config().stopTimeoutMs());
        advance(g);
    }

    private static int maxMisses(GroupState g, Run run) {
        return run.participants.stream().map(g.members::get).filter(m -> m != null)
                .mapToInt(m -> m.barrierMisses).max().orElse(0);
    }

    /** Seed step 5 with D8: a failed run is retried with backoff; a dirty run is queued again. */
    private void end(GroupState g, boolean ok) {
        Run run = g.run;
        g.run = null;
        groups.runEnded(g);
        if (run != null) {
            run.awaiting.keySet().forEach(groups.requests::remove);
            core.cancelTimer(new CoordinatorTimer.Barrier(g.id));
        }
        if (ok) {
            g.failedRuns = 0;
            g.trigger = g.trigger.transitionTo(g.trigger == TriggerState.RUNNING_DIRTY ? TriggerState.QUEUED
                    : TriggerState.IDLE);
            drain(g);
            return;
        }
        g.failedRuns++;
        g.trigger = g.trigger.transitionTo(TriggerState.IDLE);
        core.setTimer(new CoordinatorTimer.RetryRebalance(g.id), core.now() + core.config().backoffMs(g.failedRuns));
    }

    /** A run of the group is in its Stop round: its owners multi follows the last Stop answer. */
    static boolean ownersWriteAhead(GroupState g) {
        return g.run != null && g.run.phase == Run.Phase.STOPPING;
    }
}
