package shepherd.coordination.group;

import shepherd.coordination.Registration;

/** What the coordinator knows of one member of a group (mutable; owned by its {@link GroupState}). */
public final class Member {
    static final long NO_CONNECTION = -1;
    static final long NEVER = Long.MIN_VALUE;
    static final long NO_REQUEST = -1;

    final String consumerId;
    Registration registration;
    /** The connection it registered on; commands go there and nowhere else. */
    long connectionId = NO_CONNECTION;
    /** Registered with this coordinator in this epoch (false: recorded in ZooKeeper by a previous epoch). */
    boolean confirmed;
    /** When we last sent it something that renews its lease: RegisterResponse, Ping or Start. */
    long grantSentMs = NEVER;
    long pingRequestId = NO_REQUEST;
    /**
     * When it last answered a Ping without an error, in this incarnation; {@link #NEVER} if it has not. Only
     * reported (DescribeGroups): liveness is judged by {@link #missedPings}, which counts what went unanswered.
     */
    long pingAnsweredMs = NEVER;
    int missedPings;
    int barrierMisses;
    /** The generation whose Start it acknowledged in this epoch; -1 none. */
    int startedGeneration = -1;

    Member(String consumerId, Registration registration) {
        this.consumerId = consumerId;
        this.registration = registration;
    }

    boolean connected() {
        return connectionId != NO_CONNECTION;
    }
}
