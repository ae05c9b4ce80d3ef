package shepherd.consumer.session;

import shepherd.consumer.session.SessionEvent.FetchersStopped;
import shepherd.consumer.session.SessionEvent.ShutdownRequested;
import shepherd.consumer.session.SessionEvent.Started;

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
 *
 * <p>This class holds the guards every event meets first and the one switch over the status. The handlers it
 * dispatches to are pure, package-private and one per concern, so each can be read alone: {@link Discovery}
 * (DISCOVERING), {@link Registration} (REGISTERING), {@link Commands} (the member statuses, and FetchersStopped)
 * and {@link Departure} (lost membership, shutdown, Leave, termination).
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

    private final Defect defect;
    private final Registration registration;
    private final Commands commands;
    private final Departure departure;

    public ConsumerSession() {
        this(Defect.NONE);
    }

    ConsumerSession(Defect defect) {
        this.defect = defect;
        this.departure = new Departure(defect);
        this.registration = new Registration(defect);
        this.commands = new Commands(defect, departure);
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
            Step expired = Departure.loseMembership(state, nowMs);
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
            return Discovery.startRound(b.build());
        }
        throw new IllegalStateException("Event before Started: " + event);
    }

    private Step dispatch(SessionState s, SessionEvent event, long nowMs) {
        if (event instanceof Started) {
            throw new IllegalStateException("Started twice: " + event + " in " + s.status());
        }
        if (s.leaveSent()) {
            return Departure.awaitingLeave(s, event);
        }
        if (event instanceof ShutdownRequested shutdown) {
            return departure.shutdown(s, shutdown.taken());
        }
        if (event instanceof FetchersStopped stopped) {
            // In any status: fetchers may outlive a lost membership.
            return commands.fetchersStopped(s, stopped.taken());
        }
        return switch (s.status()) {
            // Seed consumerStartup steps 1–3: consult one broker at a time until one names a coordinator.
            case DISCOVERING -> Discovery.onEvent(s, event, nowMs);
            // Seed consumerStartup step 4: connect to the coordinator and register.
            case REGISTERING -> registration.onEvent(s, event, nowMs);
            // A member: obey Ping, Stop and Start from the coordinator; lose it all on a closed connection.
            case REGISTERED, FETCHING, STOPPED -> commands.onEvent(s, event, nowMs);
        };
    }
}
