package shepherd.consumer.session;

import java.util.List;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.PartitionAssignment;

/**
 * The whole state of one consumer session, immutable. Only the core ({@link ConsumerSession} and its handlers in
 * this package) builds new values, through {@link Builder#status}, which enforces {@link SessionStatus#transitionTo}.
 *
 * @param config            null until {@link SessionEvent.Started}
 * @param generation        FETCHING: the generation fetched; STOPPED: the highest generation we acknowledged
 *                          the end of (a Start must be above it); otherwise {@link #NONE}
 * @param highestEpochSeen  the highest coordinator epoch seen in Consult, Register and commands; {@link #NONE}
 * @param candidates        DISCOVERING: the brokers of this round, in the order they are consulted
 * @param candidateIndex    DISCOVERING: the candidate whose Consult is outstanding
 * @param backoffPending    DISCOVERING: waiting for the DISCOVERY_BACKOFF timer, no Consult outstanding
 * @param failedRounds      rounds since the last successful registration, the backoff exponent
 * @param followedBroker    the broker whose Consult answer the last round followed, or {@link #NONE}: the next
 *                          round consults it last, so an answer it keeps giving from a stale view cannot send every
 *                          round back to the same refusal
 * @param coordinator       REGISTERING and member statuses: the broker we are connected (or connecting) to
 * @param knownBrokers      the seed's serverCluster: the brokers the last good ConsultResponse listed
 * @param registerSent      REGISTERING: Register sent, RegisterAnswered awaited
 * @param memberId          the consumer id the coordinator registered (normally the configured one)
 * @param leaseDeadlineMs   member statuses: the receipt time of the last valid ping (or registration) plus L;
 *                          {@link #NO_LEASE} otherwise
 * @param assignment        FETCHING: what the Start of {@code generation} assigned
 * @param fetchersStopping  StopFetchers was emitted (Stop, shutdown, lost membership), FetchersStopped not yet seen
 * @param pendingStops      correlation ids of Stop requests answered once FetchersStopped arrives
 * @param leaving           shutdown requested; Leave goes out once the fetchers are stopped
 * @param leaveSent         Leave sent, its answer awaited (it says whether the final offsets were written); the
 *                          lease still bounds the wait, and nothing else from the coordinator is obeyed
 * @param termination       non-null once the session is over; every later event is ignored
 */
public record SessionState(
        SessionConfig config,
        SessionStatus status,
        int generation,
        int highestEpochSeen,
        List<BrokerInfo> candidates,
        int candidateIndex,
        boolean backoffPending,
        int failedRounds,
        int followedBroker,
        BrokerInfo coordinator,
        List<BrokerInfo> knownBrokers,
        boolean registerSent,
        String memberId,
        long leaseDeadlineMs,
        List<PartitionAssignment> assignment,
        boolean fetchersStopping,
        List<Integer> pendingStops,
        boolean leaving,
        boolean leaveSent,
        Termination termination) {

    /** No generation, no epoch. */
    public static final int NONE = -1;
    public static final long NO_LEASE = Long.MIN_VALUE;

    /** How a session ended: {@code error} NONE for a shutdown, else the terminal error. */
    public record Termination(ErrorCode error, String reason) {}

    public SessionState {
        candidates = List.copyOf(candidates);
        knownBrokers = List.copyOf(knownBrokers);
        assignment = List.copyOf(assignment);
        pendingStops = List.copyOf(pendingStops);
    }

    /** Before {@link SessionEvent.Started}: discovering nothing yet. */
    public static SessionState unstarted() {
        return new SessionState(null, SessionStatus.DISCOVERING, NONE, NONE, List.of(), 0, false, 0, NONE, null,
                List.of(), false, null, NO_LEASE, List.of(), false, List.of(), false, false, null);
    }

    public boolean started() {
        return config != null;
    }

    public boolean terminated() {
        return termination != null;
    }

    public boolean hasLease() {
        return leaseDeadlineMs != NO_LEASE;
    }

    /** The lease ran out: {@code nowMs} reached the deadline (a ping at exactly the deadline is too late). */
    public boolean leaseExpiredAt(long nowMs) {
        return hasLease() && nowMs >= leaseDeadlineMs;
    }

    Builder toBuilder() {
        return new Builder(this);
    }

    /** A copy-and-change helper local to the core; {@link #status} is the one place a status changes. */
    static final class Builder {
        private final SessionState from;
        SessionConfig config;
        SessionStatus status;
        int generation;
        int highestEpochSeen;
        List<BrokerInfo> candidates;
        int candidateIndex;
        boolean backoffPending;
        int failedRounds;
        int followedBroker;
        BrokerInfo coordinator;
        List<BrokerInfo> knownBrokers;
        boolean registerSent;
        String memberId;
        long leaseDeadlineMs;
        List<PartitionAssignment> assignment;
        boolean fetchersStopping;
        List<Integer> pendingStops;
        boolean leaving;
        boolean leaveSent;
        Termination termination;

        private Builder(SessionState s) {
            from = s;
            config = s.config;
            status = s.status;
            generation = s.generation;
            highestEpochSeen = s.highestEpochSeen;
            candidates = s.candidates;
            candidateIndex = s.candidateIndex;
            backoffPending = s.backoffPending;
            failedRounds = s.failedRounds;
            followedBroker = s.followedBroker;
            coordinator = s.coordinator;
            knownBrokers = s.knownBrokers;
            registerSent = s.registerSent;
            memberId = s.memberId;
            leaseDeadlineMs = s.leaseDeadlineMs;
            assignment = s.assignment;
            fetchersStopping = s.fetchersStopping;
            pendingStops = s.pendingStops;
            leaving = s.leaving;
            leaveSent = s.leaveSent;
            termination = s.termination;
        }

        /** Moves to {@code next}; throws "Cannot transition from X to Y" if the old status does not allow it. */
        Builder status(SessionStatus next) {
            status = from.status.transitionTo(next);
            return this;
        }

        Builder generation(int value) {
            generation = value;
            return this;
        }

        Builder highestEpochSeen(int value) {
            highestEpochSeen = Math.max(highestEpochSeen, value);
            return this;
        }

        Builder fetchersStopping(boolean value) {
            fetchersStopping = value;
            return this;
        }

        Builder leaseDeadlineMs(long value) {
            leaseDeadlineMs = value;
            return this;
        }

        SessionState build() {
            return new SessionState(config, status, generation, highestEpochSeen, candidates, candidateIndex,
                    backoffPending, failedRounds, followedBroker, coordinator, knownBrokers, registerSent, memberId,
                    leaseDeadlineMs, assignment, fetchersStopping, pendingStops, leaving, leaveSent, termination);
        }
    }
}
