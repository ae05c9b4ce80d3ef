package shepherd.coordination.group;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent.ZkWriteFailed;
import shepherd.coordination.CoordinatorTimer;
import shepherd.coordination.GroupSnapshot;
import shepherd.coordination.GroupView;
import shepherd.coordination.TriggerState;
import shepherd.coordination.ZkOp;
import shepherd.coordination.ZkRead;
import shepherd.coordination.defect.Defect;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.OffsetCommitResponse;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.Request;
import shepherd.protocol.StopRequest;

/**
 * Every group this coordinator holds, and what their parts share: the members' connections, the commands in
 * flight, the write pipeline and its continuations ({@link #resume}). The per-group behaviour is in two parts that
 * call each other: {@link Membership} (who is in the group, what they report) and {@link Rebalance} (the trigger
 * and the run's barrier). Loading after an election and the handover use the methods below that are public.
 */
public final class Groups {
    /** A command in flight: whose answer it awaits, and for which generation. */
    record Pending(String group, String consumerId, int generation) {}

    final Core core;
    final Topics topics;
    final Reads reads;
    final Membership membership;
    final Rebalance rebalance;
    final TreeMap<String, GroupState> all = new TreeMap<>();
    /** connection id → {group, consumer id} of the member registered on it. */
    final Map<Long, String[]> connections = new HashMap<>();
    final Map<Long, Pending> requests = new HashMap<>();
    /**
     * The peer of every open connection the runtime told us about, member's or not: a connection may Consult first
     * and Register later. Forgotten when it closes, so it is bounded by the runtime's open connections; kept across
     * {@link #clear}, because a connection outlives an epoch (a consumer that only consulted stays connected).
     */
    final Map<Long, String> peers = new HashMap<>();
    /**
     * Groups whose removal of a member is held for the owners multi of the run it starts ({@link
     * Membership#remove}): flushed at the end of the step in which that run stops being about to write owners
     * without having written them.
     */
    final Set<GroupState> heldForOwners = new LinkedHashSet<>();
    /** Groups whose run ended or was abandoned in this step: their {@code RebalanceEnded} is due at its end. */
    private final Set<GroupState> runsEnded = new LinkedHashSet<>();
    final WritePipeline writes;
    private final Runnable memberAnswered;
    private long nextRequestId = 1;

    /**
     * @param memberAnswered called when a registration was answered: the lease wait after a clean handover ends
     *                       once every recorded member is back
     */
    public Groups(Core core, Topics topics, Reads reads, Handover handover, Runnable memberAnswered) {
        this.core = core;
        this.topics = topics;
        this.reads = reads;
        this.memberAnswered = memberAnswered;
        this.membership = new Membership(this);
        this.rebalance = new Rebalance(this);
        this.writes = new WritePipeline(new WritePipeline.Host() {
            @Override
            public void emit(CoordinatorEffect effect) {
                core.emit(effect);
            }

            @Override
            public int epoch() {
                return core.epoch();
            }

            @Override
            public boolean fenced() {
                return !core.defect(Defect.NO_FENCING);
            }

            @Override
            public void readBack(GroupState g) {
                reads.read(new ZkRead.Group(g.id));
            }

            @Override
            public void resume(GroupState g, AfterWrite next, boolean ok) {
                if (next instanceof AfterWrite.HandOverWhenDurable || next instanceof AfterWrite.FinishHandover) {
                    handover.resume(next, ok);
                } else {
                    Groups.this.resume(g, next, ok);
                }
            }
        });
    }

    /** What a handover part must do once a write it waits for is durable. */
    public interface Handover {
        void resume(AfterWrite next, boolean ok);
    }

    // ================================================================== the continuations

    /** Resumes what waited for the group's writes, by the kind of continuation. */
    private void resume(GroupState g, AfterWrite next, boolean ok) {
        if (next instanceof AfterWrite.AnswerRegister a) {
            // The registration is durable (or failed: UNKNOWN, and the consumer registers again).
            membership.registerDurable(g, a, ok);
        } else if (next instanceof AfterWrite.AnswerCommit a) {
            // The committed offsets are durable: only now may the consumer count on them (D10).
            core.respond(a.connectionId(), a.correlationId(), ok
                    ? new OffsetCommitResponse(ErrorCode.NONE, a.results())
                    : OffsetCommitResponse.error(ErrorCode.UNKNOWN));
        } else if (next instanceof AfterWrite.AnswerLeave a) {
            // The removal and the last offsets are durable.
            core.respond(a.connectionId(), a.correlationId(),
                    ok ? LeaveResponse.ok() : LeaveResponse.error(ErrorCode.UNKNOWN));
        } else if (next instanceof AfterWrite.ReloadOffsets r) {
            // The group's own writes are out of the way: the offsets re-read may go now.
            rebalance.reloadOffsets(r.group());
        } else if (next instanceof AfterWrite.StartRun s) {
            // The owners multi committed (or failed): Start the new generation, or end the run.
            rebalance.ownersWritten(g, s.run(), ok);
        } else {
            throw new IllegalStateException("not a group's continuation: " + next);
        }
    }

    // ================================================================== steps

    /**
     * The end of a step: send what was held for an owners multi that is no longer about to come, and report the
     * runs that ended.
     */
    public void endStep() {
        releaseHeldWrites();
        for (GroupState g : runsEnded) {
            if (all.get(g.id) == g && g.run == null) {
                core.emit(new CoordinatorEffect.RebalanceEnded(g.id, g.generation, g.stable(),
                        Collections.unmodifiableSortedSet(new TreeSet<>(g.members.keySet())), g.owners.size()));
            }
        }
        runsEnded.clear();
    }

    void runEnded(GroupState g) {
        runsEnded.add(g);
    }

    /**
     * Sends what {@link Membership#remove} held for an owners multi that is not about to come: the run ended or
     * was abandoned (a handover), or it waits out a failed member's lease. Checked after every step, so nothing is
     * held past the step in which that became so; a Stop round that times out sends it too. A Leave's answer waits
     * at most one Stop timeout longer than it would for a write of its own.
     */
    private void releaseHeldWrites() {
        for (Iterator<GroupState> it = heldForOwners.iterator(); it.hasNext(); ) {
            GroupState g = it.next();
            if (all.get(g.id) != g) {
                it.remove();
            } else if (!Rebalance.ownersWriteAhead(g)) {
                it.remove();
                writes.flush(g);
            }
        }
    }

    // ================================================================== sending

    /** Sends a command; it renews the member's lease when it leaves (Ping, Start) — Stop does not. */
    long send(GroupState g, Member m, Request request, int generation) {
        long id = nextRequestId++;
        if (!m.connected() || !core.canCommand()) {
            return id; // never leaves: counts as unanswered
        }
        requests.put(id, new Pending(g.id, m.consumerId, generation));
        if (!(request instanceof StopRequest)) {
            m.grantSentMs = core.now();
        }
        core.emit(new CoordinatorEffect.SendRequest(m.connectionId, id, request));
        return id;
    }

    void closeConnection(long connectionId) {
        connections.remove(connectionId);
        core.emit(new CoordinatorEffect.CloseConnection(connectionId));
    }

    // ================================================================== for the coordinator and its other parts

    public Membership membership() {
        return membership;
    }

    public Rebalance rebalance() {
        return rebalance;
    }

    public Optional<GroupState> get(String id) {
        return Optional.ofNullable(all.get(id));
    }

    public boolean contains(String id) {
        return all.containsKey(id);
    }

    public void peer(long connectionId, String peer) {
        peers.put(connectionId, peer);
    }

    public void peerClosed(long connectionId) {
        peers.remove(connectionId);
    }

    /** The connections of members, in order. */
    public List<Long> memberConnections() {
        return new ArrayList<>(new TreeSet<>(connections.keySet()));
    }

    /**
     * Forgets every group (handleNewSession step 1). Closes every member's connection unless {@code keepOpen}:
     * consumers are told by the close, rediscover and find the next coordinator.
     */
    public void clear(boolean keepOpen) {
        if (!keepOpen) {
            for (long connectionId : new TreeSet<>(connections.keySet())) {
                core.emit(new CoordinatorEffect.CloseConnection(connectionId));
            }
        }
        topics.clear();
        reads.clear();
        all.clear();
        writes.clear();
        heldForOwners.clear();
        runsEnded.clear();
        connections.clear();
        requests.clear();
    }

    // ------------------------------------------------------------------ ZooKeeper's answers

    public void writeDone(long writeId) {
        writes.finished(writeId, true);
    }

    public void writeFailed(ZkWriteFailed failed) {
        writes.failed(failed);
    }

    /** ZooKeeper is back: the failed reads again, and the read-back of every write of unknown outcome. */
    public void retryZk() {
        reads.retry();
        writes.retry();
    }

    /** TopicChangeListener step 2 / TopicPartitionChangeListener: every interested group, wildcard or not. */
    public void topicsChanged(Set<String> changed) {
        for (GroupState g : all.values()) {
            boolean interested = g.members.values().stream().anyMatch(m -> changed.stream()
                    .anyMatch(t -> Subscriptions.interestedIn(m.registration.subscription(), t)));
            boolean owned = g.owners.keySet().stream().anyMatch(tp -> changed.contains(tp.topic()));
            if (interested || owned) {
                rebalance.request(g);
            }
        }
    }

    /**
     * A group found in ZooKeeper after an election (GroupChangeListener steps 3–5). Its recorded members are not
     * confirmed: they were registered with an earlier epoch, which may still have granted them a lease; unless
     * {@code fenceRecorded} is false (the previous epoch handed over cleanly), they are fenced until that lease is
     * surely over, counted from {@code sinceMs} (DESIGN §5, post-election lease wait).
     */
    public GroupState adopt(String name, String assignor, GroupSnapshot snapshot, long sinceMs, boolean fenceRecorded) {
        GroupState g = new GroupState(name, assignor);
        g.generation = snapshot.generation();
        g.owners = new TreeMap<>(snapshot.owners());
        g.offsets.putAll(snapshot.offsets());
        snapshot.registrations().forEach((consumerId, registration) -> {
            Optional<String> invalid = Subscriptions.invalid(name, consumerId, registration);
            if (invalid.isPresent()) {
                // Written by an older version or by hand: skip it, say so once, disturb nothing else. The member
                // will be told INVALID_REGISTRATION if it registers with it again.
                core.notice("group '" + name + "': skipping the recorded registration of '" + consumerId + "': "
                        + invalid.get());
                return;
            }
            g.members.put(consumerId, new Member(consumerId, registration));
            if (fenceRecorded) {
                g.fencedUntil.put(consumerId, core.config().leaseSurelyOverMs(sinceMs, registration.leaseMs()));
            }
        });
        g.offsetsStale = g.members.isEmpty(); // nobody holds the group: an operator may reset it before one joins
        all.put(name, g);
        return g;
    }

    /**
     * A read of a group we hold was answered: the offsets re-read of an emptied group, the read-back of a write of
     * unknown outcome, or a re-read after a member change, for which the necessity check decides.
     */
    public void reread(GroupState known, GroupSnapshot snapshot) {
        boolean reloaded = known.offsetsStale && known.reloadIssued;
        if (reloaded) {
            rebalance.adoptOffsets(known, snapshot);
        }
        if (known.resolving) {
            writes.resolve(known, snapshot);
        } else {
            rebalance.request(known);
        }
        if (reloaded) {
            rebalance.drain(known); // the run it held back (request leaves a QUEUED group alone)
        } else {
            rebalance.reloadOffsets(known); // it may have waited for this read to be out of the way
        }
    }

    /** A read of the group failed: the offsets re-read may have waited for it to be out of the way. */
    public void readFailed(String group) {
        GroupState g = all.get(group);
        if (g != null) {
            rebalance.reloadOffsets(g);
        }
    }

    // ------------------------------------------------------------------ the post-election lease wait

    /** When the last lease that a member recorded by an earlier epoch may hold is surely over. */
    public long fencedUntilMax() {
        long endMs = Long.MIN_VALUE;
        for (GroupState g : all.values()) {
            endMs = Math.max(endMs, g.fencedUntilMax());
        }
        return endMs;
    }

    /** Every recorded member registered again in this epoch and was answered. */
    public boolean everyoneBack() {
        for (GroupState g : all.values()) {
            for (Member m : g.members.values()) {
                if (!m.confirmed || m.grantSentMs == Member.NEVER) {
                    return false;
                }
            }
        }
        return true;
    }

    /** End of the lease wait: remove the members that did not return, and queue one run per group (D9). */
    public void leaseWaitOver(int epoch) {
        for (GroupState g : all.values()) {
            for (Member m : new ArrayList<>(g.members.values())) {
                if (!m.confirmed) {
                    membership.remove(g, m, "did not re-register after the election of epoch " + epoch);
                }
            }
            if (g.trigger == TriggerState.IDLE) {
                g.trigger = g.trigger.transitionTo(TriggerState.QUEUED);
            }
        }
    }

    void memberAnswered() {
        memberAnswered.run();
    }

    // ------------------------------------------------------------------ graceful handover

    /**
     * Abandons every run and stops every member for a handover: its pings end, and a Stop of the current
     * generation goes to each connected one. Returns the Stops sent, by request id, and the latest time a lease
     * granted so far may still run.
     */
    public HandoverStops stopAllForHandover() {
        Map<Long, String[]> awaiting = new HashMap<>();
        long deadline = core.now();
        for (GroupState g : all.values()) {
            if (g.run != null) {
                g.run.awaiting.keySet().forEach(requests::remove);
                g.run = null;
                runEnded(g);
                core.cancelTimer(new CoordinatorTimer.Barrier(g.id));
            }
            deadline = Math.max(deadline, g.fencedUntilMax());
            for (Member m : g.members.values()) {
                core.cancelTimer(new CoordinatorTimer.PingDue(g.id, m.consumerId));
                if (m.grantSentMs != Member.NEVER) {
                    deadline = Math.max(deadline, core.config().leaseSurelyOverMs(m.grantSentMs,
                            m.registration.leaseMs()));
                }
                if (m.connected() && core.canCommand()) {
                    long id = send(g, m, new StopRequest(core.epoch(), g.generation), g.generation);
                    awaiting.put(id, new String[] {g.id, m.consumerId});
                }
            }
        }
        return new HandoverStops(awaiting, deadline);
    }

    /** The Stops a handover sent (request id → {group, consumer}) and when every lease is surely over. */
    public record HandoverStops(Map<Long, String[]> awaiting, long deadlineMs) {}

    /** The command {@code requestId} is no longer awaited; its pending entry, if any, for the handover. */
    public Optional<String[]> takeRequest(long requestId) {
        Pending p = requests.remove(requestId);
        return p == null ? Optional.empty() : Optional.of(new String[] {p.group(), p.consumerId()});
    }

    /**
     * A Stop answer during the handover: the offsets it carries are written if the member owns them in the current
     * generation.
     */
    public void handoverStopped(String group, String consumerId, List<PartitionOffset> offsets) {
        GroupState g = all.get(group);
        Member m = g == null ? null : g.members.get(consumerId);
        if (m != null && offsets != null && m.startedGeneration == g.generation) {
            membership.acceptOffsets(g, m, offsets);
            writes.flush(g);
        }
    }

    /**
     * Makes {@code next} wait for the first group with writes queued or in flight; false when every group's writes
     * are durable already (then nothing waits).
     */
    public boolean waitForWrites(AfterWrite next) {
        for (GroupState g : all.values()) {
            if (g.inFlight != null || !g.queued.isEmpty()) {
                writes.afterWrite(g, next);
                return true;
            }
        }
        return false;
    }

    /** Whether the handover record is being written. */
    public boolean handoverWriteInFlight() {
        return writes.handover.inFlight != null;
    }

    /** Writes the handover record of {@code epoch}; {@code next} resumes once it is durable. */
    public void writeHandover(int epoch, AfterWrite next) {
        writes.handover.queue(new ZkOp.PutHandover(epoch));
        writes.afterWrite(writes.handover, next);
    }

    // ------------------------------------------------------------------ views

    public SortedMap<String, GroupView> views() {
        TreeMap<String, GroupView> views = new TreeMap<>();
        all.forEach((id, g) -> views.put(id, Describe.view(g)));
        return views;
    }

    public Optional<GroupView> view(String id) {
        return get(id).map(Describe::view);
    }
}
