package shepherd.consumer.session;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import shepherd.consumer.session.SessionEffect.CancelTimer;
import shepherd.consumer.session.SessionEffect.CloseConnection;
import shepherd.consumer.session.SessionEffect.Connect;
import shepherd.consumer.session.SessionEffect.Respond;
import shepherd.consumer.session.SessionEffect.SendConsult;
import shepherd.consumer.session.SessionEffect.SendLeave;
import shepherd.consumer.session.SessionEffect.SendRegister;
import shepherd.consumer.session.SessionEffect.SetTimer;
import shepherd.consumer.session.SessionEffect.StartFetchers;
import shepherd.consumer.session.SessionEffect.StopFetchers;
import shepherd.consumer.session.SessionEffect.Terminate;
import shepherd.consumer.session.SessionEvent.ConnectionClosed;
import shepherd.consumer.session.SessionEvent.Connected;
import shepherd.consumer.session.SessionEvent.ConsultAnswered;
import shepherd.consumer.session.SessionEvent.ConsultFailed;
import shepherd.consumer.session.SessionEvent.FetchersStopped;
import shepherd.consumer.session.SessionEvent.LeaveAnswered;
import shepherd.consumer.session.SessionEvent.RegisterAnswered;
import shepherd.consumer.session.SessionEvent.RequestReceived;
import shepherd.consumer.session.SessionEvent.ShutdownRequested;
import shepherd.consumer.session.SessionEvent.Started;
import shepherd.consumer.session.SessionEvent.TimerFired;
import shepherd.consumer.session.SessionState.Termination;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.protocol.Responses;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;

/**
 * The consumer session core: {@code onEvent(state, event, nowMs) → Step(next state, effects)}, pure and
 * deterministic (see the package documentation and docs/consumer-session.md).
 *
 * <p>Two rules make the consumer safe against a coordinator it can no longer trust, and both are checked before
 * anything else an event might do:
 * <ol>
 *   <li><b>The lease</b> (DESIGN §5, defect D3). A member holds a lease of {@code L = pingIntervalMs ×
 *       (maxPingRetries + 1)}, renewed at the receipt of each valid ping. Every event first checks {@code nowMs}
 *       against the deadline, not only the LEASE timer: a runtime that fires the timer late (a GC pause, a busy
 *       event loop) must not let a Ping arriving after the deadline revive a lease the coordinator already counts
 *       as gone, because by then it may have handed our partitions to someone else (ExclusiveOwnership).</li>
 *   <li><b>Highest epoch wins</b> (DESIGN §5, defect D2). Ping, Stop and Start of an epoch below the highest we
 *       have seen are answered STALE_COORDINATOR_EPOCH and not applied (NoStaleCommandApplied); a higher epoch
 *       is adopted.</li>
 * </ol>
 * Start is applied only in REGISTERED (any first Start) or in STOPPED(s) for a generation {@code g > s} whose
 * Stop has completed, so a consumer never runs two generations' fetchers at once nor starts a generation it was
 * not stopped for.
 */
public final class ConsumerSession {

    /**
     * Deliberately broken variants, for the negative controls of the invariant checkers (CONVENTIONS 13) and
     * nothing else; only tests in this package can choose one.
     */
    enum Defect {
        NONE,
        /** Apply commands of any epoch (the seed's behaviour, D2). */
        IGNORE_EPOCHS,
        /** Never expire the lease (the seed's behaviour, D3). */
        IGNORE_LEASE,
        /** Apply a Start in any member status and for any generation. */
        START_WITHOUT_STOP,
        /** Answer Stop as soon as the fetchers are asked to stop (the seed's wording, read literally). */
        EARLY_STOP_RESPONSE,
        /** End the session as left once Leave is sent, never reading the answer that says if the offsets landed. */
        UNCONFIRMED_LEAVE
    }

    /** Stop requests waiting for FetchersStopped at once; past this the coordinator is told to retry later. */
    public static final int PENDING_STOPS_MAX = 16;
    /** The backoff exponent stops growing here ({@link SessionConfig#backoffMs} is capped long before). */
    static final int FAILED_ROUNDS_MAX = 64;

    private final Defect defect;

    public ConsumerSession() {
        this(Defect.NONE);
    }

    ConsumerSession(Defect defect) {
        this.defect = defect;
    }

    /** Decides what {@code event}, observed at {@code nowMs} (the runtime's monotonic clock), does to {@code state}. */
    public Step onEvent(SessionState state, SessionEvent event, long nowMs) {
        if (state.terminated()) {
            // The session is over; late answers, timers and commands find nobody.
            return Step.none(state);
        }
        if (!state.started()) {
            return onUnstarted(state, event);
        }
        if (state.leaseExpiredAt(nowMs) && defect != Defect.IGNORE_LEASE) {
            // Expire first, then let the event meet the resulting state: DISCOVERING ignores coordinator traffic,
            // and a session that was leaving is over and ignores everything.
            Step expired = loseMembership(state, nowMs);
            if (event instanceof FetchersStopped && !state.fetchersStopping()) {
                // A confirmation that arrives with no stop outstanding answers none, so it must not confirm the
                // stop this expiry has just ordered: those fetchers may still be running. (Found by the
                // session property: seed -8732502746232079701.)
                return expired;
            }
            return expired.then(onEvent(expired.next(), event, nowMs));
        }
        return dispatch(state, event, nowMs);
    }

    private Step onUnstarted(SessionState state, SessionEvent event) {
        if (event instanceof Started started) {
            SessionState.Builder b = state.toBuilder();
            b.config = started.config();
            return startRound(b.build());
        }
        throw new IllegalStateException("Event before Started: " + event);
    }

    private Step dispatch(SessionState s, SessionEvent event, long nowMs) {
        if (event instanceof Started) {
            throw new IllegalStateException("Started twice: " + event + " in " + s.status());
        }
        if (s.leaveSent()) {
            return awaitingLeave(s, event);
        }
        if (event instanceof ShutdownRequested shutdown) {
            return shutdown(s, shutdown.taken(), nowMs);
        }
        if (event instanceof FetchersStopped stopped) {
            return fetchersStopped(s, stopped.taken()); // in any status: fetchers may outlive a lost membership
        }
        return switch (s.status()) {
            // Seed consumerStartup steps 1–3: consult one broker at a time until one names a coordinator.
            case DISCOVERING -> discovering(s, event, nowMs);
            // Seed consumerStartup step 4: connect to the coordinator and register.
            case REGISTERING -> registering(s, event, nowMs);
            // A member: obey Ping, Stop and Start from the coordinator; lose it all on a closed connection.
            case REGISTERED, FETCHING, STOPPED -> member(s, event, nowMs);
        };
    }

    // ---------------------------------------------------------------- discovery

    private Step discovering(SessionState s, SessionEvent event, long nowMs) {
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
    private static Step startRound(SessionState s) {
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
    private static List<BrokerInfo> roundCandidates(SessionState s) {
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

    /** DISCOVERING, waiting for the backoff timer; {@code before} are effects that must come first. */
    private static Step backOff(SessionState.Builder b, long nowMs, List<SessionEffect> before) {
        long deadlineMs = nowMs + b.config.backoffMs(b.failedRounds);
        b.failedRounds = Math.min(b.failedRounds + 1, FAILED_ROUNDS_MAX);
        b.backoffPending = true;
        b.candidateIndex = 0;
        List<SessionEffect> effects = new ArrayList<>(before);
        effects.add(new SetTimer(TimerKey.DISCOVERY_BACKOFF, deadlineMs));
        return Step.to(b.build(), effects);
    }

    // ---------------------------------------------------------------- registration

    private Step registering(SessionState s, SessionEvent event, long nowMs) {
        int coordinatorId = s.coordinator().id();
        if (event instanceof Connected c && c.brokerId() == coordinatorId && !s.registerSent()) {
            SessionState.Builder b = s.toBuilder();
            b.registerSent = true;
            return Step.to(b.build(), new SendRegister(registerRequest(s)));
        }
        if (event instanceof ConnectionClosed c && c.brokerId() == coordinatorId) {
            return rediscover(s, nowMs, List.of()); // could not connect, or lost it before the answer
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
            return rediscover(s, nowMs, List.of(close)); // accepted by a coordinator that is already deposed
        }
        if (r.errorCode() == ErrorCode.NONE) {
            return registered(s, r, nowMs);
        }
        if (isTerminal(r.errorCode())) {
            return terminate(s, r.errorCode(), "registration refused: " + r.errorCode(), List.of(close));
        }
        // NOT_COORDINATOR, COORDINATOR_NOT_READY, STALE_COORDINATOR_EPOCH, ...: the next round may find better.
        return rediscover(s, nowMs, List.of(close));
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

    // ---------------------------------------------------------------- membership

    private Step member(SessionState s, SessionEvent event, long nowMs) {
        if (event instanceof RequestReceived r) {
            return command(s, r, nowMs);
        }
        if (event instanceof ConnectionClosed c && c.brokerId() == s.coordinator().id()) {
            return loseMembership(s, nowMs);
        }
        // LEASE firing before the deadline (a replaced timer), stray discovery answers: nothing to do.
        return Step.none(s);
    }

    /**
     * Lease expiry or a closed connection: stop fetching at once, drop the assignment and any Stop still waiting
     * (its connection is gone), then rediscover — or, if we were leaving anyway, end. The first round after a
     * membership goes at once: the usual reason is a coordinator that handed over and let us go once its successor
     * was known, and the backoff is for rounds that fail (those that follow back off as before).
     */
    private static Step loseMembership(SessionState s, long nowMs) {
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
        return Step.to(discovering, effects).then(startRound(discovering));
    }

    private static Step rediscover(SessionState s, long nowMs, List<SessionEffect> before) {
        SessionState.Builder b = clearMembership(s.toBuilder().status(SessionStatus.DISCOVERING));
        b.candidates = roundCandidates(s);
        return backOff(b, nowMs, before);
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

    private static Step terminate(SessionState s, ErrorCode error, String reason, List<SessionEffect> before) {
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

    // ---------------------------------------------------------------- commands

    private Step command(SessionState s, RequestReceived r, long nowMs) {
        int epoch = commandEpoch(r.request());
        if (epoch == SessionState.NONE) {
            // Consult, Register, OffsetCommit, Leave are ours to send, never the coordinator's.
            return reply(s, r, Responses.errorResponse(r.request().apiKey(), ErrorCode.INVALID_REQUEST));
        }
        if (epoch < s.highestEpochSeen() && defect != Defect.IGNORE_EPOCHS) {
            // NoStaleCommandApplied: a deposed coordinator may still reach us; it neither renews nor commands.
            return reply(s, r, Responses.errorResponse(r.request().apiKey(), ErrorCode.STALE_COORDINATOR_EPOCH));
        }
        SessionState adopted = s.toBuilder().highestEpochSeen(epoch).build();
        if (r.request() instanceof PingRequest) {
            return ping(adopted, r, nowMs);
        }
        if (r.request() instanceof StopRequest stop) {
            return stop(adopted, r, stop.generation());
        }
        return start(adopted, r, (StartRequest) r.request());
    }

    /** The coordinator epoch of a Ping, Stop or Start; {@link SessionState#NONE} for any other request. */
    private static int commandEpoch(Request request) {
        if (request instanceof PingRequest ping) {
            return ping.coordinatorEpoch();
        }
        if (request instanceof StopRequest stop) {
            return stop.coordinatorEpoch();
        }
        if (request instanceof StartRequest start) {
            return start.coordinatorEpoch();
        }
        return SessionState.NONE;
    }

    private static Step reply(SessionState s, RequestReceived r, Response response) {
        return Step.effects(s, new Respond(r.correlationId(), response));
    }

    /** Seed handlePingRequest: renew the lease, report our generation and (iff auto-commit) the offsets taken. */
    private static Step ping(SessionState s, RequestReceived r, long nowMs) {
        long deadlineMs = nowMs + s.config().leaseMs();
        SessionState next = s.toBuilder().leaseDeadlineMs(deadlineMs).build();
        int generation = s.status() == SessionStatus.REGISTERED ? SessionState.NONE : s.generation();
        PingResponse response = new PingResponse(ErrorCode.NONE, generation, offsets(s, r.taken()));
        return Step.to(next, new SetTimer(TimerKey.LEASE, deadlineMs), new Respond(r.correlationId(), response));
    }

    /**
     * The seed's second handlePingRequest, really the Stop handler: "if fetcherStopped then do nothing; otherwise
     * close all fetchers and clean their queues", then respond — but here the response waits for
     * FetchersStopped, so the coordinator's Stop barrier (BarrierSound) means the fetchers really are closed.
     */
    private Step stop(SessionState s, RequestReceived r, int generation) {
        if (s.status() == SessionStatus.FETCHING) {
            if (generation < s.generation()) {
                // A Stop for a generation before the one we fetch ends nothing we run; stopping would lose work.
                return reply(s, r, StopResponse.error(ErrorCode.ILLEGAL_GENERATION));
            }
            SessionState.Builder b = s.toBuilder().status(SessionStatus.STOPPED).generation(generation);
            b.assignment = List.of();
            b.fetchersStopping = true;
            if (defect == Defect.EARLY_STOP_RESPONSE) {
                return Step.to(b.build(), new StopFetchers(generation),
                        new Respond(r.correlationId(), stopped(s, r.taken())));
            }
            b.pendingStops = List.of(r.correlationId());
            return Step.to(b.build(), new StopFetchers(generation));
        }
        // REGISTERED or STOPPED: nothing runs. Remember the highest generation whose end we acknowledge.
        SessionState.Builder b = s.toBuilder().generation(Math.max(s.generation(), generation));
        if (s.status() == SessionStatus.REGISTERED) {
            b.status(SessionStatus.STOPPED);
        }
        if (!s.fetchersStopping()) {
            return Step.to(b.build(), new Respond(r.correlationId(), stopped(s, r.taken())));
        }
        if (s.pendingStops().size() >= PENDING_STOPS_MAX) {
            return reply(s, r, StopResponse.error(ErrorCode.REBALANCE_IN_PROGRESS));
        }
        // Fetchers still closing: this Stop, too, is answered only once they are.
        List<Integer> pending = new ArrayList<>(s.pendingStops());
        pending.add(r.correlationId());
        b.pendingStops = pending;
        return Step.to(b.build());
    }

    /**
     * Start(g) is applied in REGISTERED (any first Start), or in STOPPED(s) for g > s once the Stop completed
     * (NoStaleCommandApplied: "nor a Start of a generation it was not stopped for"). In FETCHING it is rejected:
     * the coordinator must Stop us first, otherwise two generations' fetchers could overlap.
     */
    private Step start(SessionState s, RequestReceived r, StartRequest start) {
        int g = start.generation();
        if (defect == Defect.START_WITHOUT_STOP) {
            return applyStart(s, r, start);
        }
        switch (s.status()) {
            case REGISTERED:
                // Any first Start: nothing was fetched in this membership.
                if (s.fetchersStopping()) {
                    // The fetchers of a membership lost to lease expiry or a closed connection are still closing.
                    return reply(s, r, StartResponse.error(ErrorCode.REBALANCE_IN_PROGRESS));
                }
                return applyStart(s, r, start);
            case FETCHING:
                // The coordinator must Stop us first. The same Start again (a retry whose answer was lost) is
                // acknowledged, not re-applied.
                boolean duplicate = g == s.generation() && start.assigned().equals(s.assignment());
                return reply(s, r, duplicate ? StartResponse.ok() : StartResponse.error(ErrorCode.ILLEGAL_GENERATION));
            case STOPPED:
                // Only a later generation, and only once the Stop has completed.
                if (s.fetchersStopping() || s.leaving()) {
                    return reply(s, r, StartResponse.error(ErrorCode.REBALANCE_IN_PROGRESS)); // Stop unfinished
                }
                if (g <= s.generation()) {
                    return reply(s, r, StartResponse.error(ErrorCode.ILLEGAL_GENERATION)); // not stopped for it
                }
                return applyStart(s, r, start);
            default:
                throw new IllegalStateException("Start handled outside membership, status " + s.status());
        }
    }

    private static Step applyStart(SessionState s, RequestReceived r, StartRequest start) {
        SessionState.Builder b = s.toBuilder().generation(start.generation());
        if (s.status() != SessionStatus.FETCHING) {
            b.status(SessionStatus.FETCHING);
        }
        b.assignment = start.assigned();
        return Step.to(b.build(), new StartFetchers(start.generation(), start.assigned()),
                new Respond(r.correlationId(), StartResponse.ok()));
    }

    private Step fetchersStopped(SessionState s, List<PartitionOffset> taken) {
        if (!s.fetchersStopping()) {
            return Step.none(s); // the confirmation of a stop nobody waits for (e.g. the one of a lease expiry)
        }
        List<SessionEffect> effects = new ArrayList<>();
        for (int correlationId : s.pendingStops()) {
            effects.add(new Respond(correlationId, stopped(s, taken)));
        }
        SessionState.Builder b = s.toBuilder();
        b.fetchersStopping = false;
        b.pendingStops = List.of();
        if (s.leaving()) {
            return leave(b.build(), taken, effects);
        }
        return Step.to(b.build(), effects);
    }

    private static StopResponse stopped(SessionState s, List<PartitionOffset> taken) {
        return new StopResponse(ErrorCode.NONE, offsets(s, taken));
    }

    /** Offsets are reported iff auto-commit is on (DESIGN §3: null iff auto_commit off). */
    private static List<PartitionOffset> offsets(SessionState s, List<PartitionOffset> taken) {
        return s.config().autoCommit() ? taken : null;
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Stop the fetchers, then send Leave with the final offsets, then wait for its answer, which says whether they
     * were written; the connection closes after it.
     */
    private Step shutdown(SessionState s, List<PartitionOffset> taken, long nowMs) {
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
    private Step leave(SessionState s, List<PartitionOffset> taken, List<SessionEffect> before) {
        List<SessionEffect> effects = new ArrayList<>(before);
        effects.add(new SendLeave(new LeaveRequest(s.config().groupId(), s.memberId(), offsets(s, taken))));
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
    private static Step awaitingLeave(SessionState s, SessionEvent event) {
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
        int epoch = event instanceof RequestReceived r ? commandEpoch(r.request()) : SessionState.NONE;
        if (epoch == SessionState.NONE) {
            return Step.none(s);
        }
        if (epoch < s.highestEpochSeen()) {
            // A deposed coordinator is told so, as anywhere else (NoStaleCommandApplied).
            RequestReceived r = (RequestReceived) event;
            return reply(s, r, Responses.errorResponse(r.request().apiKey(), ErrorCode.STALE_COORDINATOR_EPOCH));
        }
        return Step.to(s.toBuilder().highestEpochSeen(epoch).build()); // seen, so an older one is refused after it
    }

    /** What an unconfirmed Leave may have cost. */
    private static String unconfirmed(SessionState s) {
        return s.config().autoCommit() ? "the final offsets may not be committed"
                : "if the coordinator did not see it, the group rebalances once it notices the closed connection";
    }
}
