package shepherd.consumer.session;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import shepherd.consumer.session.SessionEffect.Connect;
import shepherd.consumer.session.SessionEffect.SendConsult;
import shepherd.consumer.session.SessionEffect.SetTimer;
import shepherd.consumer.session.SessionEvent.ConsultAnswered;
import shepherd.consumer.session.SessionEvent.ConsultFailed;
import shepherd.consumer.session.SessionEvent.TimerFired;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.ErrorCode;

/**
 * DISCOVERING (seed consumerStartup steps 1–3): consult one broker at a time until one names a coordinator of an
 * epoch we accept, and back off between rounds that find none. One Consult is outstanding at a time, so an answer
 * counts only if it comes from the broker asked in the current round.
 */
final class Discovery {
    /** The backoff exponent stops growing here ({@link SessionConfig#backoffMs} is capped long before). */
    static final int FAILED_ROUNDS_MAX = 64;

    private Discovery() {}

    /** The DISCOVERING handler: Consult answers and failures of the current candidate, and the backoff timer. */
    static Step onEvent(SessionState s, SessionEvent event, long nowMs) {
        boolean outstanding = !s.backoffPending();
        if (event instanceof ConsultAnswered a && outstanding && a.brokerId() == currentCandidate(s).id()) {
            return consultAnswered(s, a.response(), nowMs);
        }
        if (event instanceof ConsultFailed f && outstanding && f.brokerId() == currentCandidate(s).id()) {
            return nextCandidate(s, nowMs); // seed step 1.1: try another broker
        }
        if (event instanceof TimerFired t && t.key() == TimerKey.DISCOVERY_BACKOFF && s.backoffPending()) {
            return startRound(s);
        }
        return Step.none(s); // a stray answer of an abandoned round, or coordinator traffic after we left
    }

    /** A round consults the brokers the last Consult listed (seed: serverCluster), then the bootstrap ones. */
    static Step startRound(SessionState s) {
        SessionState.Builder b = s.toBuilder();
        b.candidates = roundCandidates(s);
        b.candidateIndex = 0;
        b.backoffPending = false;
        SessionState next = b.build();
        return Step.to(next, new SendConsult(currentCandidate(next)));
    }

    /**
     * Known brokers first (they are the current cluster), then bootstrap brokers not among them: if every known
     * broker is gone (a cluster moved), the configured ones are still tried rather than none. The order is turned to
     * start after the broker whose answer the last round followed: a broker that has not yet seen a new election
     * keeps naming the deposed coordinator with the epoch we already accept, and asking it first every round would
     * follow it to the same refusal until it catches up.
     */
    static List<BrokerInfo> roundCandidates(SessionState s) {
        Map<Integer, BrokerInfo> byId = new LinkedHashMap<>();
        s.knownBrokers().forEach(b -> byId.putIfAbsent(b.id(), b));
        s.config().bootstrapBrokers().forEach(b -> byId.putIfAbsent(b.id(), b));
        List<BrokerInfo> candidates = new ArrayList<>(byId.values());
        for (int i = 0; i < candidates.size(); i++) {
            if (candidates.get(i).id() == s.followedBroker()) {
                Collections.rotate(candidates, -(i + 1));
                break;
            }
        }
        return List.copyOf(candidates);
    }

    /** DISCOVERING, waiting for the backoff timer; {@code before} are effects that must come first. */
    static Step backOff(SessionState.Builder b, long nowMs, List<SessionEffect> before) {
        long deadlineMs = nowMs + b.config.backoffMs(b.failedRounds);
        b.failedRounds = Math.min(b.failedRounds + 1, FAILED_ROUNDS_MAX);
        b.backoffPending = true;
        b.candidateIndex = 0;
        List<SessionEffect> effects = new ArrayList<>(before);
        effects.add(new SetTimer(TimerKey.DISCOVERY_BACKOFF, deadlineMs));
        return Step.to(b.build(), effects);
    }

    private static BrokerInfo currentCandidate(SessionState s) {
        return s.candidates().get(s.candidateIndex());
    }

    private static Step nextCandidate(SessionState s, long nowMs) {
        if (s.candidateIndex() + 1 < s.candidates().size()) {
            SessionState.Builder b = s.toBuilder();
            b.candidateIndex = s.candidateIndex() + 1;
            SessionState next = b.build();
            return Step.to(next, new SendConsult(currentCandidate(next)));
        }
        // Seed step 1.2 throws AllKnownBrokersNotAvailable; a consumer should outlive a cluster restart, so back off.
        return backOff(s.toBuilder(), nowMs, List.of());
    }

    private static Step consultAnswered(SessionState s, ConsultResponse r, long nowMs) {
        if (r.errorCode() != ErrorCode.NONE || r.coordinatorId() == ConsultResponse.NONE) {
            return nextCandidate(s, nowMs); // no coordinator elected yet, or this broker cannot say
        }
        if (r.coordinatorEpoch() < s.highestEpochSeen()) {
            // This broker has not yet seen the election we already heard of: its coordinator is a deposed one.
            return nextCandidate(s, nowMs);
        }
        BrokerInfo coordinator = find(r, r.coordinatorId());
        if (coordinator == null) {
            return nextCandidate(s, nowMs); // a coordinator without an address is no use; ask someone else
        }
        // Seed step 3: update serverCluster and curCoordinator.
        SessionState.Builder b = s.toBuilder().status(SessionStatus.REGISTERING).highestEpochSeen(r.coordinatorEpoch());
        b.followedBroker = currentCandidate(s).id();
        b.knownBrokers = r.brokers();
        b.coordinator = coordinator;
        b.registerSent = false;
        return Step.to(b.build(), new Connect(coordinator));
    }

    private static BrokerInfo find(ConsultResponse r, int brokerId) {
        for (BrokerInfo broker : r.brokers()) {
            if (broker.id() == brokerId) {
                return broker;
            }
        }
        return null;
    }
}
