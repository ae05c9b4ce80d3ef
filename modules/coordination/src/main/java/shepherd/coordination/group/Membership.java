package shepherd.coordination.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEffect.Notice;
import shepherd.coordination.CoordinatorTimer;
import shepherd.coordination.Registration;
import shepherd.coordination.ZkOp;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.OffsetCommitRequest;
import shepherd.protocol.OffsetCommitResponse;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PartitionResult;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Response;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StopResponse;

/**
 * Who is in a group and what they report: Register, OffsetCommit and Leave; pings and failure detection (DESIGN
 * §5); a member's removal; the answers to our commands, handed to the run they belong to.
 *
 * <p>A lease counts from our last grant (RegisterResponse, Ping or Start, {@link Member#grantSentMs}): a member we
 * can no longer command is fenced until that lease is surely over ({@link #fenceLease}), and no Start gives its
 * partitions away before then.
 */
public final class Membership {
    private final Groups groups;
    private final Core core;

    Membership(Groups groups) {
        this.groups = groups;
        this.core = groups.core;
    }

    // ================================================================== Register (DESIGN §3, D11)

    /** A Register while we serve; during LOADING it was held and comes here once loaded. */
    public void register(long connectionId, int correlationId, RegisterRequest r) {
        Optional<ErrorCode> notNow = core.notServing(r.highestEpochSeen());
        if (notNow.isPresent()) {
            core.respond(connectionId, correlationId, new RegisterResponse(notNow.get(), core.epoch(), r.consumerId()));
            return;
        }
        Registration registration = Registration.of(r);
        Optional<String> invalid = Subscriptions.invalid(r.groupId(), r.consumerId(), registration);
        if (invalid.isPresent()) {
            core.notice("rejected registration of consumer '" + r.consumerId() + "' in group '" + r.groupId()
                    + "' on connection " + connectionId + ": " + invalid.get());
            core.respond(connectionId, correlationId, new RegisterResponse(ErrorCode.INVALID_REGISTRATION,
                    core.epoch(), r.consumerId()));
            return;
        }
        GroupState g = groups.all.get(r.groupId());
        if (g == null) {
            g = new GroupState(r.groupId(), core.config().assignors().forNewGroup(r.groupId()));
            groups.all.put(g.id, g);
            g.queue(new ZkOp.PutGroup(g.id, 0, g.assignor));
        }
        Member m = g.members.get(r.consumerId());
        if (m != null && m.connectionId == connectionId && m.confirmed && m.registration.equals(registration)) {
            // The same Register again (its answer was lost): answer again, change nothing — but not before the
            // write of the first is durable (it may still be in flight, and may fail).
            groups.writes.afterWrite(g, new AfterWrite.AnswerRegister(m, connectionId, correlationId, false));
            return;
        }
        boolean recorded = m != null; // in ZooKeeper as m.registration: written by us, or loaded at the election
        if (m != null) {
            forgetIncarnation(g, m); // the old connection, if any, can no longer be commanded
        } else {
            m = new Member(r.consumerId(), registration);
            g.members.put(m.consumerId, m);
        }
        // A recorded member coming back with the registration ZooKeeper holds (every member after a handover or a
        // failover) needs no write: its answer goes out at once instead of behind a multi per group.
        boolean changed = !recorded || !m.registration.equals(registration);
        m.registration = registration;
        m.confirmed = true;
        m.connectionId = connectionId;
        m.missedPings = 0;
        m.pingAnsweredMs = Member.NEVER;
        m.barrierMisses = 0;
        m.startedGeneration = -1;
        m.pingRequestId = Member.NO_REQUEST;
        groups.connections.put(connectionId, new String[] {g.id, m.consumerId});
        if (changed) {
            g.queue(new ZkOp.PutRegistration(g.id, m.consumerId, registration));
        }
        groups.writes.afterWrite(g, new AfterWrite.AnswerRegister(m, connectionId, correlationId, true));
    }

    /** {@link AfterWrite.AnswerRegister}: the registration is durable ({@code ok}) or its write failed. */
    void registerDurable(GroupState g, AfterWrite.AnswerRegister a, boolean ok) {
        Member m = a.member();
        if (g.members.get(m.consumerId) != m) {
            return; // removed meanwhile; that path answered
        }
        if (m.connectionId == a.connectionId()) {
            m.grantSentMs = core.now();
            core.respond(a.connectionId(), a.correlationId(), new RegisterResponse(
                    ok ? ErrorCode.NONE : ErrorCode.UNKNOWN, core.epoch(), m.consumerId));
        }
        if (!a.joined()) {
            return; // a repeated Register changes nothing
        }
        // Even when its connection closed while the write was in flight: pings are what notice it is gone.
        core.setTimer(new CoordinatorTimer.PingDue(g.id, m.consumerId), core.now() + m.registration.pingIntervalMs());
        groups.rebalance.request(g);
        groups.memberAnswered();
    }

    /**
     * A consumer id registers anew while we still hold an earlier incarnation of it: that one may still be fetching
     * (a duplicate process, or our close not yet seen), so its lease is waited out before its partitions move.
     */
    private void forgetIncarnation(GroupState g, Member m) {
        if (m.connected()) {
            groups.closeConnection(m.connectionId);
        }
        fenceLease(g, m);
        m.connectionId = Member.NO_CONNECTION;
        if (g.run != null) {
            g.run.drop(m.consumerId);
            groups.rebalance.markDirty(g);
            groups.rebalance.advance(g); // it may have been the last one the run waited for
        }
    }

    void fenceLease(GroupState g, Member m) {
        if (m.grantSentMs != Member.NEVER) {
            g.fencedUntil.merge(m.consumerId, core.config().leaseSurelyOverMs(m.grantSentMs, m.registration.leaseMs()),
                    Math::max);
        }
    }

    // ================================================================== OffsetCommit and Leave

    /** OffsetCommit: the member's own partitions of the current generation, forwards only, fenced (D10). */
    public void commit(long connectionId, int correlationId, OffsetCommitRequest r) {
        Optional<ErrorCode> notNow = core.notServingEpoch(r.coordinatorEpoch());
        if (notNow.isPresent()) {
            core.respond(connectionId, correlationId, OffsetCommitResponse.error(notNow.get()));
            return;
        }
        GroupState g = groups.all.get(r.groupId());
        Member m = g == null ? null : g.members.get(r.consumerId());
        if (m == null || m.connectionId != connectionId) {
            core.respond(connectionId, correlationId, OffsetCommitResponse.error(ErrorCode.UNKNOWN_CONSUMER));
            return;
        }
        if (r.generation() != g.generation || m.startedGeneration != g.generation) {
            core.respond(connectionId, correlationId, OffsetCommitResponse.error(ErrorCode.ILLEGAL_GENERATION));
            return;
        }
        List<PartitionResult> results = acceptOffsets(g, m, r.offsets());
        groups.writes.afterWrite(g, new AfterWrite.AnswerCommit(connectionId, correlationId, results));
    }

    /** Leave: write its last offsets, remove it, rebalance the rest. */
    public void leave(long connectionId, int correlationId, LeaveRequest r) {
        Optional<ErrorCode> notNow = core.notServing(-1);
        if (notNow.isPresent()) {
            core.respond(connectionId, correlationId, LeaveResponse.error(notNow.get()));
            return;
        }
        GroupState g = groups.all.get(r.groupId());
        Member m = g == null ? null : g.members.get(r.consumerId());
        if (m == null || m.connectionId != connectionId) {
            core.respond(connectionId, correlationId, LeaveResponse.error(ErrorCode.UNKNOWN_CONSUMER));
            return;
        }
        if (r.offsets() != null && m.startedGeneration == g.generation) {
            acceptOffsets(g, m, r.offsets());
        }
        // The session core sends Leave only after its fetchers are closed, so nothing is left to wait out. The
        // connection stays open for the answer (the consumer closes it); it is no member's any more.
        groups.connections.remove(connectionId);
        m.connectionId = Member.NO_CONNECTION;
        remove(g, m, null);
        groups.writes.afterWrite(g, new AfterWrite.AnswerLeave(connectionId, correlationId),
                !groups.heldForOwners.contains(g));
    }

    /**
     * Queues the offsets the member may write and says per partition why not otherwise: it must own the partition
     * in the current generation (NOT_OWNER); an offset not beyond the committed one is acknowledged but not written
     * (a retried or reordered report must never move a committed offset backwards).
     */
    List<PartitionResult> acceptOffsets(GroupState g, Member m, List<PartitionOffset> offsets) {
        List<PartitionResult> results = new ArrayList<>(offsets.size());
        if (g.ownersChanging()) {
            // The owners of the next generation are being written or started: a report of the old generation that
            // arrives now could land after them and be written for a partition its reporter no longer owns. (The
            // write can outlive its run: a handover aborts the run, not the multi already sent.)
            offsets.forEach(po -> results.add(new PartitionResult(po.topic(), po.partition(),
                    ErrorCode.REBALANCE_IN_PROGRESS)));
            return results;
        }
        for (PartitionOffset po : offsets) {
            Optional<TopicPartition> tp = parse(po);
            StreamId owner = tp.map(g.owners::get).orElse(null);
            if (owner == null || !owner.consumerId().equals(m.consumerId) || po.offset() < 0) {
                results.add(new PartitionResult(po.topic(), po.partition(), ErrorCode.NOT_OWNER));
                continue;
            }
            if (po.offset() > g.offsetFloor(tp.get())) {
                g.queue(new ZkOp.PutOffset(g.id, tp.get(), po.offset(), m.consumerId));
            }
            results.add(new PartitionResult(po.topic(), po.partition(), ErrorCode.NONE));
        }
        return results;
    }

    private static Optional<TopicPartition> parse(PartitionOffset po) {
        try {
            return Optional.of(TopicPartition.of(po.topic(), po.partition()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    // ================================================================== answers to our commands, and closes

    /** An answer to a Ping, Stop or Start of ours, outside a handover. */
    public void answered(long connectionId, long requestId, Response response) {
        Groups.Pending p = groups.requests.remove(requestId);
        if (p == null) {
            return; // answer to a request of a reset or finished run
        }
        GroupState g = groups.all.get(p.group());
        Member m = g == null ? null : g.members.get(p.consumerId());
        if (m == null || m.connectionId != connectionId) {
            return; // from an incarnation we no longer command
        }
        if (response instanceof PingResponse ping) {
            pingAnswered(g, m, requestId, ping);
        } else if (response instanceof StopResponse stop) {
            groups.rebalance.stopAnswered(g, m, requestId, stop);
        } else if (response instanceof StartResponse start) {
            groups.rebalance.startAnswered(g, m, requestId, p.generation(), start);
        }
    }

    public void connectionClosed(long connectionId) {
        String[] owner = groups.connections.remove(connectionId);
        if (owner == null) {
            return;
        }
        GroupState g = groups.all.get(owner[0]);
        Member m = g == null ? null : g.members.get(owner[1]);
        if (m == null || m.connectionId != connectionId) {
            return;
        }
        // It cannot be commanded any more; its lease runs out by itself. Pings count it missing until it returns.
        fenceLease(g, m);
        m.connectionId = Member.NO_CONNECTION;
        if (g.run != null && g.run.participants.contains(m.consumerId)) {
            g.run.drop(m.consumerId);
            groups.rebalance.markDirty(g);
            groups.rebalance.advance(g);
        }
    }

    // ================================================================== pings and failure detection

    public void pingDue(String group, String consumerId) {
        GroupState g = groups.all.get(group);
        Member m = g == null ? null : g.members.get(consumerId);
        if (m == null || !core.serving()) {
            return;
        }
        boolean unanswered = m.pingRequestId != Member.NO_REQUEST;
        if (unanswered || !m.connected()) {
            m.missedPings++;
            groups.requests.remove(m.pingRequestId);
            m.pingRequestId = Member.NO_REQUEST;
            core.emit(new Notice(Notice.Kind.PING_MISSED, "group '" + g.id + "': consumer '" + m.consumerId
                    + "' missed ping " + m.missedPings + " of " + (m.registration.maxPingRetries() + 1)));
        }
        if (m.missedPings > m.registration.maxPingRetries()) {
            // DESIGN §5: max_ping_retries + 1 consecutive unanswered pings.
            remove(g, m, "missed " + m.missedPings + " pings");
            groups.rebalance.request(g);
            return;
        }
        if (m.connected() && core.canCommand()) {
            m.pingRequestId = groups.send(g, m, new PingRequest(core.epoch(), g.generation, (short) m.missedPings),
                    g.generation);
        }
        core.setTimer(new CoordinatorTimer.PingDue(g.id, m.consumerId), core.now() + m.registration.pingIntervalMs());
    }

    private void pingAnswered(GroupState g, Member m, long requestId, PingResponse ping) {
        if (requestId != m.pingRequestId) {
            return;
        }
        m.pingRequestId = Member.NO_REQUEST;
        if (ping.errorCode() != ErrorCode.NONE) {
            return; // STALE_COORDINATOR_EPOCH and friends: not an answer; the next PingDue counts it
        }
        m.missedPings = 0;
        m.pingAnsweredMs = core.now();
        if (ping.offsets() != null && m.startedGeneration == g.generation && ping.generation() == g.generation) {
            acceptOffsets(g, m, ping.offsets());
            groups.writes.flush(g);
        }
    }

    // ================================================================== removal

    /**
     * A member is gone — failed ({@code why} says how), left ({@code why} null), or did not return after an
     * election: stop commanding it, wait out whatever lease we gave it, delete its registration, and let the group
     * rebalance.
     */
    void remove(GroupState g, Member m, String why) {
        if (why != null) {
            core.emit(new Notice(Notice.Kind.MEMBER_FAILED, "group '" + g.id + "': removing consumer '"
                    + m.consumerId + "': " + why));
            fenceLease(g, m);
        }
        core.emit(new CoordinatorEffect.MemberRemoved(g.id, m.consumerId, why != null));
        if (m.connected()) {
            groups.closeConnection(m.connectionId);
            m.connectionId = Member.NO_CONNECTION;
        }
        groups.requests.remove(m.pingRequestId);
        g.members.remove(m.consumerId);
        if (g.members.isEmpty()) {
            // From now on `shepherd offsets reset` may write the group's offsets: see Rebalance.reloadOffsets.
            g.offsetsStale = true;
            g.reloadIssued = false;
        }
        core.cancelTimer(new CoordinatorTimer.PingDue(g.id, m.consumerId));
        g.queue(new ZkOp.DeleteRegistration(g.id, m.consumerId));
        if (g.run != null) {
            g.run.drop(m.consumerId);
            groups.rebalance.markDirty(g);
            groups.rebalance.advance(g);
        }
        groups.rebalance.request(g);
        if (why == null && Rebalance.ownersWriteAhead(g)) {
            // A Leave: the removal and the last offsets ride the run's owners multi. Sent on their own, they were
            // still in flight when the Stop round ended in half the leaves measured, and the owners multi (one write
            // per group at a time) waited for them. A failed member's run waits out its lease before writing
            // owners, so its removal goes at once.
            groups.heldForOwners.add(g);
        } else {
            groups.writes.flush(g);
        }
    }
}
