package shepherd.consumer.session;

import java.util.List;
import shepherd.consumer.session.ConsumerSession.Defect;
import shepherd.consumer.session.SessionEffect.CloseConnection;
import shepherd.consumer.session.SessionEffect.SendRegister;
import shepherd.consumer.session.SessionEffect.SetTimer;
import shepherd.consumer.session.SessionEvent.ConnectionClosed;
import shepherd.consumer.session.SessionEvent.Connected;
import shepherd.consumer.session.SessionEvent.RegisterAnswered;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;

/**
 * REGISTERING (seed consumerStartup step 4): once connected to the coordinator Discovery found, send Register and
 * become a member on its answer, or go back to discovering (or end, for an error every coordinator would repeat).
 * The lease starts with the answer that makes us a member.
 */
final class Registration {
    private final Defect defect;

    Registration(Defect defect) {
        this.defect = defect;
    }

    /** The REGISTERING handler: our connection, its loss, and the answer to our Register. */
    Step onEvent(SessionState s, SessionEvent event, long nowMs) {
        int coordinatorId = s.coordinator().id();
        if (event instanceof Connected c && c.brokerId() == coordinatorId && !s.registerSent()) {
            SessionState.Builder b = s.toBuilder();
            b.registerSent = true;
            return Step.to(b.build(), new SendRegister(registerRequest(s)));
        }
        if (event instanceof ConnectionClosed c && c.brokerId() == coordinatorId) {
            return Departure.rediscover(s, nowMs, List.of()); // could not connect, or lost it before the answer
        }
        if (event instanceof RegisterAnswered a && s.registerSent()) {
            return registerAnswered(s, a.response(), nowMs);
        }
        return Step.none(s); // commands before our registration is confirmed are not ours to obey yet
    }

    private static RegisterRequest registerRequest(SessionState s) {
        SessionConfig c = s.config();
        return new RegisterRequest(c.groupId(), c.consumerId(), c.subscription(), c.autoCommit(),
                c.autoOffsetReset(), c.pingIntervalMs(), c.maxPingRetries(), s.highestEpochSeen());
    }

    private Step registerAnswered(SessionState s, RegisterResponse r, long nowMs) {
        CloseConnection close = new CloseConnection(s.coordinator().id());
        if (r.errorCode() == ErrorCode.NONE && r.coordinatorEpoch() < s.highestEpochSeen()
                && defect != Defect.IGNORE_EPOCHS) {
            return Departure.rediscover(s, nowMs, List.of(close)); // accepted by a coordinator already deposed
        }
        if (r.errorCode() == ErrorCode.NONE) {
            return registered(s, r, nowMs);
        }
        if (isTerminal(r.errorCode())) {
            return Departure.terminate(s, r.errorCode(), "registration refused: " + r.errorCode(), List.of(close));
        }
        // NOT_COORDINATOR, COORDINATOR_NOT_READY, STALE_COORDINATOR_EPOCH, ...: the next round may find better.
        return Departure.rediscover(s, nowMs, List.of(close));
    }

    /** Errors that the same Register would get again from any coordinator: retrying forever would hide them. */
    private static boolean isTerminal(ErrorCode error) {
        return error == ErrorCode.INVALID_REGISTRATION || error == ErrorCode.INVALID_REQUEST
                || error == ErrorCode.UNSUPPORTED_VERSION;
    }

    private static Step registered(SessionState s, RegisterResponse r, long nowMs) {
        long deadlineMs = nowMs + s.config().leaseMs(); // the lease starts at registration success
        SessionState.Builder b = s.toBuilder().status(SessionStatus.REGISTERED)
                .highestEpochSeen(r.coordinatorEpoch()).leaseDeadlineMs(deadlineMs).generation(SessionState.NONE);
        b.memberId = r.consumerId().isEmpty() ? s.config().consumerId() : r.consumerId();
        b.failedRounds = 0;
        b.registerSent = false;
        return Step.to(b.build(), new SetTimer(TimerKey.LEASE, deadlineMs));
    }
}
