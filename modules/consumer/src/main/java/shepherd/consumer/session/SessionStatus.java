package shepherd.consumer.session;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where a consumer session is (DESIGN §6): {@code DISCOVERING → REGISTERING → REGISTERED → FETCHING(g) ⇄
 * STOPPED(g)}, and back to DISCOVERING on lease expiry, a closed connection or a retriable registration error.
 * Each constant owns its legal successors; {@link #transitionTo} is the only way the core changes status.
 * This enum never goes on the wire, so ordinals are never used for anything.
 */
public enum SessionStatus {
    /** Looking for the coordinator with Consult (seed consumerStartup steps 1–3), or backing off between rounds. */
    DISCOVERING,
    /** Connecting to the coordinator and waiting for the RegisterResponse (seed consumerStartup step 4). */
    REGISTERING,
    /** A member with a lease, never started since registering: no fetcher runs. */
    REGISTERED,
    /** Fetching the partitions of one generation's Start. */
    FETCHING,
    /** Stopped for a generation: fetchers closed (or closing, until FetchersStopped), waiting for a Start. */
    STOPPED;

    /** The statuses this one may move to; a status never "transitions" to itself. */
    public Set<SessionStatus> successors() {
        return switch (this) {
            // Consult found a coordinator.
            case DISCOVERING -> EnumSet.of(REGISTERING);
            // Registered; or a failure (closed connection, retriable or terminal error) sends us back.
            case REGISTERING -> EnumSet.of(REGISTERED, DISCOVERING);
            // Start; Stop before any Start (seed: "if fetcherStopped then do nothing", then respond); lease/close.
            case REGISTERED -> EnumSet.of(FETCHING, STOPPED, DISCOVERING);
            // Stop (or shutdown); lease expiry or a closed connection.
            case FETCHING -> EnumSet.of(STOPPED, DISCOVERING);
            // Start of a later generation; lease expiry or a closed connection.
            case STOPPED -> EnumSet.of(FETCHING, DISCOVERING);
        };
    }

    public boolean canTransitionTo(SessionStatus next) {
        return successors().contains(next);
    }

    /** Returns {@code next}, or throws: an illegal transition is a bug in the core, never an expected outcome. */
    public SessionStatus transitionTo(SessionStatus next) {
        if (!canTransitionTo(next)) {
            throw new IllegalStateException("Cannot transition from " + this + " to " + next);
        }
        return next;
    }

    /** True where the session holds a registration and obeys coordinator commands (and so holds a lease). */
    public boolean isMember() {
        return this == REGISTERED || this == FETCHING || this == STOPPED;
    }
}
