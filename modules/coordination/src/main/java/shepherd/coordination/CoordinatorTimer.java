package shepherd.coordination;

import java.util.Objects;

/** The keys of the coordinator's timers; setting a key again replaces its deadline. */
public sealed interface CoordinatorTimer {

    /** Issue a cheap ZooKeeper read so that the live-session bound stays fresh (DESIGN §5). */
    record KeepAlive() implements CoordinatorTimer {}

    /** The post-election lease wait is over (D4). */
    record LeaseWaitOver() implements CoordinatorTimer {}

    /** Time to ping a member, and to count the previous ping as missed if it is still unanswered. */
    record PingDue(String group, String consumerId) implements CoordinatorTimer {
        public PingDue {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(consumerId, "consumerId");
        }
    }

    /** A barrier phase of a group's run is due: Stop round over, leases waited out, or Start round over. */
    record Barrier(String group) implements CoordinatorTimer {
        public Barrier {
            Objects.requireNonNull(group, "group");
        }
    }

    /** Retry a group's run that ended with {@code false} (D8). */
    record RetryRebalance(String group) implements CoordinatorTimer {
        public RetryRebalance {
            Objects.requireNonNull(group, "group");
        }
    }

    /** Retry the ZooKeeper reads or the unknown-outcome writes that failed. */
    record ZkRetry() implements CoordinatorTimer {}

    /** Graceful handover: the leases of members that did not acknowledge Stop are surely over. */
    record HandoverDeadline() implements CoordinatorTimer {}

    /** Handed over: stop waiting for the next coordinator to appear before closing the members' connections. */
    record HandoverLinger() implements CoordinatorTimer {}
}
