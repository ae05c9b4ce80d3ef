package shepherd.coordination.handover;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import shepherd.coordination.Coordinator.Role;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorTimer;
import shepherd.coordination.group.AfterWrite;
import shepherd.coordination.group.Core;
import shepherd.coordination.group.Groups;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.Response;
import shepherd.protocol.StopResponse;

/**
 * Graceful handover (DESIGN §5): stop every group — each Stop acknowledged or its lease surely over — make the
 * offsets the Stop answers carried durable, write {@code handover: true} under our epoch, resign, then let the
 * members go.
 * <pre>
 *   HANDING_OVER ──every Stop answered, or the deadline──▶ writes durable ──▶ handover record ──▶ CLOSED
 *                                                                                               │
 *          members' connections closed ◀── the next coordinator is known, or the linger bound ──┘
 * </pre>
 * Closed before the next coordinator is known, the members would rediscover while no broker can name one and back
 * off; so their connections linger, open, until a LeaderObserved of a newer epoch (or {@code handoverGraceMs}).
 */
public final class Handover implements Groups.Handover {
    /** What the handover needs of the coordinator: its full reset, which it does not own. */
    public interface Host {
        /** handleNewSession's reset, leaving the members' connections open when {@code keepMembersOpen}. */
        void reset(boolean keepMembersOpen);

        List<BrokerInfo> brokers();
    }

    private final Core core;
    private final Groups groups;
    private final Host host;
    /** Stops sent by the handover: request id → {group, consumer}. */
    private final Map<Long, String[]> awaiting = new HashMap<>();
    /** Handed over, the members' connections still open until the next coordinator is known; null otherwise. */
    private List<Long> lingering;

    public Handover(Core core, Groups groups, Host host) {
        this.core = core;
        this.groups = groups;
        this.host = host;
    }

    /** HandoverRequested: stop every group, or close at once if we coordinate nothing. */
    public void begin(Runnable refuseHeldRegisters) {
        Role role = core.role();
        if (role != Role.ACTIVE && role != Role.LEASE_WAIT && role != Role.LOADING) {
            host.reset(false);
            closed(false);
            return;
        }
        core.transitionTo(Role.HANDING_OVER);
        refuseHeldRegisters.run();
        Groups.HandoverStops stops = groups.stopAllForHandover();
        awaiting.putAll(stops.awaiting());
        core.setTimer(new CoordinatorTimer.HandoverDeadline(), stops.deadlineMs());
        maybeHandOver(false);
    }

    /** An answer to one of our commands while handing over. */
    public void answered(long requestId, Response response) {
        Optional<String[]> pending = groups.takeRequest(requestId);
        if (pending.isEmpty() || awaiting.remove(requestId) == null || !(response instanceof StopResponse stop)) {
            return;
        }
        String[] member = pending.get();
        if (stop.errorCode() != ErrorCode.NONE) {
            awaiting.put(requestId, member); // wait out its lease instead
            return;
        }
        groups.handoverStopped(member[0], member[1], stop.offsets());
        maybeHandOver(false);
    }

    public void deadlinePassed() {
        maybeHandOver(true);
    }

    /** A continuation of ours: a group's writes, or the handover record, are durable. */
    @Override
    public void resume(AfterWrite next, boolean ok) {
        if (next instanceof AfterWrite.HandOverWhenDurable h) {
            // One more group's writes are durable: look at the others.
            maybeHandOver(h.deadlinePassed());
        } else if (next instanceof AfterWrite.FinishHandover f) {
            // The handover record is written (or refused): resign and let the members go.
            finish(f.epoch(), ok);
        } else {
            throw new IllegalStateException("not a handover's continuation: " + next);
        }
    }

    private void maybeHandOver(boolean deadlinePassed) {
        if (core.role() != Role.HANDING_OVER || groups.handoverWriteInFlight()
                || !(deadlinePassed || awaiting.isEmpty())) {
            return;
        }
        // The handover record changes /consumers/epoch, so a fenced write still queued behind it would fail its
        // epoch check: the offsets the Stop answers carried must be durable first (a consumer would otherwise
        // re-deliver everything since its last ping). One group at a time; its continuation looks again.
        if (groups.waitForWrites(new AfterWrite.HandOverWhenDurable(deadlinePassed))) {
            return;
        }
        awaiting.clear();
        core.cancelTimer(new CoordinatorTimer.HandoverDeadline());
        groups.writeHandover(core.epoch(), new AfterWrite.FinishHandover(core.epoch()));
    }

    private void finish(int handedOverEpoch, boolean ok) {
        List<Long> members = groups.memberConnections();
        host.reset(true); // letMembersGo closes them
        core.transitionTo(Role.CLOSED);
        core.emit(new CoordinatorEffect.Resign(false));
        boolean standby = host.brokers().stream().anyMatch(b -> b.id() != core.config().brokerId());
        if (ok && standby && !members.isEmpty()) {
            lingering = members;
            core.setTimer(new CoordinatorTimer.HandoverLinger(), core.now() + core.config().handoverGraceMs());
        } else {
            letMembersGo(members, handedOverEpoch);
        }
    }

    /** A newer coordinator is known: the lingering members may go to it. */
    public void leaderObserved(int epoch) {
        if (lingering != null && epoch > core.epoch()) {
            endLinger();
        }
    }

    public void lingerOver() {
        if (lingering != null) {
            endLinger();
        }
    }

    public void connectionClosed(long connectionId) {
        if (lingering != null) {
            lingering.remove(connectionId);
        }
    }

    /** A reset closes the lingering connections too. */
    public void clear() {
        if (lingering != null) {
            lingering.forEach(id -> core.emit(new CoordinatorEffect.CloseConnection(id)));
            lingering = null;
        }
        awaiting.clear();
    }

    /** The handover ends as a stand-down, an expiry or a refusal to begin it would: closed, and told. */
    public void closed(boolean rejoin) {
        core.transitionTo(Role.CLOSED);
        core.emit(new CoordinatorEffect.Resign(rejoin));
        core.emit(new CoordinatorEffect.HandedOver(core.epoch()));
    }

    private void endLinger() {
        List<Long> members = lingering;
        lingering = null;
        core.cancelTimer(new CoordinatorTimer.HandoverLinger());
        letMembersGo(members, core.epoch());
    }

    /** The last step of a handover: the members' connections closed, the runtime told it is over. */
    private void letMembersGo(List<Long> members, int handedOverEpoch) {
        members.forEach(id -> core.emit(new CoordinatorEffect.CloseConnection(id)));
        core.emit(new CoordinatorEffect.HandedOver(handedOverEpoch));
    }
}
