package shepherd.consumer.session;

import java.util.ArrayList;
import java.util.List;
import shepherd.consumer.session.ConsumerSession.Defect;
import shepherd.consumer.session.SessionEffect.CancelTimer;
import shepherd.consumer.session.SessionEffect.CloseConnection;
import shepherd.consumer.session.SessionEffect.SendLeave;
import shepherd.consumer.session.SessionEffect.StopFetchers;
import shepherd.consumer.session.SessionEffect.Terminate;
import shepherd.consumer.session.SessionEvent.ConnectionClosed;
import shepherd.consumer.session.SessionEvent.LeaveAnswered;
import shepherd.consumer.session.SessionEvent.RequestReceived;
import shepherd.consumer.session.SessionState.Termination;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.Responses;

/**
 * How a session leaves a membership or ends: a lost membership (lease expiry, closed connection) sends it back to
 * discovering; a shutdown stops the fetchers, sends Leave and waits for its answer; a terminal error or the end of a
 * shutdown terminates it. What every way out has in common is {@link #clearMembership}: the assignment, the lease
 * and the pending Stops go, while {@code fetchersStopping} stays until the runtime confirms the fetchers closed.
 */
final class Departure {
    private final Defect defect;

    Departure(Defect defect) {
        this.defect = defect;
    }

    /**
     * Lease expiry or a closed connection: stop fetching at once, drop the assignment and any Stop still waiting
     * (its connection is gone), then rediscover — or, if we were leaving anyway, end. The first round after a
     * membership goes at once: the usual reason is a coordinator that handed over and let us go once its successor
     * was known, and the backoff is for rounds that fail (those that follow back off as before).
     */
    static Step loseMembership(SessionState s, long nowMs) {
        List<SessionEffect> effects = new ArrayList<>();
        if (s.status() == SessionStatus.FETCHING) {
            effects.add(new StopFetchers(s.generation()));
            s = s.toBuilder().fetchersStopping(true).build();
        }
        effects.add(new CancelTimer(TimerKey.LEASE));
        effects.add(new CloseConnection(s.coordinator().id()));
        if (s.leaveSent()) {
            return terminate(s, ErrorCode.UNKNOWN, "left the group, but the lease ran out before the Leave was"
                    + " answered: " + unconfirmed(s), effects);
        }
        if (s.leaving()) {
            return terminate(s, ErrorCode.NONE, "shut down without Leave: the coordinator was lost", effects);
        }
        SessionState discovering = clearMembership(s.toBuilder().status(SessionStatus.DISCOVERING)).build();
        return Step.to(discovering, effects).then(Discovery.startRound(discovering));
    }

    /** A registration that failed: back to DISCOVERING, after the backoff. */
    static Step rediscover(SessionState s, long nowMs, List<SessionEffect> before) {
        SessionState.Builder b = clearMembership(s.toBuilder().status(SessionStatus.DISCOVERING));
        b.candidates = Discovery.roundCandidates(s);
        return Discovery.backOff(b, nowMs, before);
    }

    /** The session is over: nothing of the membership is kept and every later event is ignored. */
    static Step terminate(SessionState s, ErrorCode error, String reason, List<SessionEffect> before) {
        SessionState.Builder b = s.toBuilder();
        if (s.status() != SessionStatus.DISCOVERING) {
            b.status(SessionStatus.DISCOVERING);
        }
        clearMembership(b);
        b.backoffPending = false;
        b.termination = new Termination(error, reason);
        List<SessionEffect> effects = new ArrayList<>(before);
        effects.add(new CancelTimer(TimerKey.DISCOVERY_BACKOFF));
        effects.add(new Terminate(error, reason));
        return Step.to(b.build(), effects);
    }

    /**
     * Stop the fetchers, then send Leave with the final offsets, then wait for its answer, which says whether they
     * were written; the connection closes after it.
     */
    Step shutdown(SessionState s, List<PartitionOffset> taken) {
        if (s.leaving()) {
            return Step.none(s); // already on the way out
        }
        switch (s.status()) {
            case DISCOVERING:
                return terminate(s, ErrorCode.NONE, "shut down", List.of());
            case REGISTERING:
                return terminate(s, ErrorCode.NONE, "shut down", List.of(new CloseConnection(s.coordinator().id())));
            case FETCHING: {
                // Leave only after the fetchers are closed: the coordinator rebalances on Leave (ExclusiveOwnership).
                SessionState.Builder b = s.toBuilder().status(SessionStatus.STOPPED);
                b.assignment = List.of();
                b.leaving = true;
                b.fetchersStopping = true;
                return Step.to(b.build(), new StopFetchers(s.generation()));
            }
            default: {
                SessionState.Builder b = s.toBuilder();
                b.leaving = true;
                if (s.fetchersStopping()) {
                    return Step.to(b.build()); // Leave goes out once FetchersStopped arrives
                }
                return leave(b.build(), taken, List.of());
            }
        }
    }

    /** Sends Leave and keeps the connection open for its answer; the lease, still running, bounds the wait. */
    Step leave(SessionState s, List<PartitionOffset> taken, List<SessionEffect> before) {
        List<SessionEffect> effects = new ArrayList<>(before);
        effects.add(new SendLeave(new LeaveRequest(s.config().groupId(), s.memberId(), Commands.offsets(s, taken))));
        if (defect == Defect.UNCONFIRMED_LEAVE) {
            effects.add(new CancelTimer(TimerKey.LEASE));
            effects.add(new CloseConnection(s.coordinator().id()));
            return terminate(s, ErrorCode.NONE, "left the group", effects);
        }
        SessionState.Builder b = s.toBuilder();
        b.leaveSent = true;
        return Step.to(b.build(), effects);
    }

    /**
     * After Leave, only its answer or the loss of the connection ends the session. A Ping, Stop or Start the
     * coordinator sent before it saw the Leave finds no member: it goes unanswered, as if the connection had closed
     * (a stale one is refused, as always).
     */
    static Step awaitingLeave(SessionState s, SessionEvent event) {
        if (event instanceof LeaveAnswered a) {
            ErrorCode error = a.response().errorCode();
            String reason = error == ErrorCode.NONE ? "left the group"
                    : "left the group, but the coordinator answered the Leave with " + error + ": " + unconfirmed(s);
            return terminate(s, error, reason,
                    List.of(new CancelTimer(TimerKey.LEASE), new CloseConnection(s.coordinator().id())));
        }
        if (event instanceof ConnectionClosed c && c.brokerId() == s.coordinator().id()) {
            return terminate(s, ErrorCode.UNKNOWN, "left the group, but the connection closed before the Leave was"
                    + " answered: " + unconfirmed(s), List.of(new CancelTimer(TimerKey.LEASE)));
        }
        int epoch = event instanceof RequestReceived r ? Commands.commandEpoch(r.request()) : SessionState.NONE;
        if (epoch == SessionState.NONE) {
            return Step.none(s);
        }
        if (epoch < s.highestEpochSeen()) {
            // A deposed coordinator is told so, as anywhere else (NoStaleCommandApplied).
            RequestReceived r = (RequestReceived) event;
            return Commands.reply(s, r,
                    Responses.errorResponse(r.request().apiKey(), ErrorCode.STALE_COORDINATOR_EPOCH));
        }
        return Step.to(s.toBuilder().highestEpochSeen(epoch).build()); // seen, so an older one is refused after it
    }

    private static SessionState.Builder clearMembership(SessionState.Builder b) {
        b.generation(SessionState.NONE).leaseDeadlineMs(SessionState.NO_LEASE);
        b.coordinator = null;
        b.registerSent = false;
        // fetchersStopping survives: until FetchersStopped, no Stop is acknowledged and no Start applied, even
        // for the next coordinator, so two memberships' fetchers never overlap either.
        b.assignment = List.of();
        b.pendingStops = List.of();
        return b;
    }

    /** What an unconfirmed Leave may have cost. */
    private static String unconfirmed(SessionState s) {
        return s.config().autoCommit() ? "the final offsets may not be committed"
                : "if the coordinator did not see it, the group rebalances once it notices the closed connection";
    }
}
