package shepherd.consumer.session;

import java.util.ArrayList;
import java.util.List;
import shepherd.consumer.session.ConsumerSession.Defect;
import shepherd.consumer.session.SessionEffect.Respond;
import shepherd.consumer.session.SessionEffect.SetTimer;
import shepherd.consumer.session.SessionEffect.StartFetchers;
import shepherd.consumer.session.SessionEffect.StopFetchers;
import shepherd.consumer.session.SessionEvent.ConnectionClosed;
import shepherd.consumer.session.SessionEvent.RequestReceived;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.protocol.Responses;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;

/**
 * A member (REGISTERED, FETCHING, STOPPED) obeys the coordinator's Ping, Stop and Start, under the epoch rule
 * (DESIGN §5, defect D2): a command of an epoch below the highest seen is answered STALE_COORDINATOR_EPOCH and
 * changes nothing (NoStaleCommandApplied); a higher one is adopted. A Stop is answered only once the runtime confirms
 * the fetchers stopped, so the coordinator's barrier (BarrierSound) means they really are closed.
 */
final class Commands {
    private final Defect defect;
    private final Departure departure;

    Commands(Defect defect, Departure departure) {
        this.defect = defect;
        this.departure = departure;
    }

    /** The member handler: commands, and the loss of the coordinator connection. */
    Step onEvent(SessionState s, SessionEvent event, long nowMs) {
        if (event instanceof RequestReceived r) {
            return command(s, r, nowMs);
        }
        if (event instanceof ConnectionClosed c && c.brokerId() == s.coordinator().id()) {
            return Departure.loseMembership(s, nowMs);
        }
        // LEASE firing before the deadline (a replaced timer), stray discovery answers: nothing to do.
        return Step.none(s);
    }

    /** The runtime confirms the fetchers closed: answer the Stops that waited for it, and Leave if leaving. */
    Step fetchersStopped(SessionState s, List<PartitionOffset> taken) {
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
            return departure.leave(b.build(), taken, effects);
        }
        return Step.to(b.build(), effects);
    }

    /** The coordinator epoch of a Ping, Stop or Start; {@link SessionState#NONE} for any other request. */
    static int commandEpoch(Request request) {
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

    /** Answers {@code r} and changes nothing. */
    static Step reply(SessionState s, RequestReceived r, Response response) {
        return Step.effects(s, new Respond(r.correlationId(), response));
    }

    /** Offsets are reported iff auto-commit is on (DESIGN §3: null iff auto_commit off). */
    static List<PartitionOffset> offsets(SessionState s, List<PartitionOffset> taken) {
        return s.config().autoCommit() ? taken : null;
    }

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
        if (s.pendingStops().size() >= ConsumerSession.PENDING_STOPS_MAX) {
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

    private static StopResponse stopped(SessionState s, List<PartitionOffset> taken) {
        return new StopResponse(ErrorCode.NONE, offsets(s, taken));
    }
}
