package shepherd.broker;

import java.util.SortedMap;
import shepherd.coordination.Coordinator;
import shepherd.coordination.GroupView;

/**
 * A consistent snapshot of one broker, taken on its loop thread between two events.
 *
 * @param role   where the broker stands in the election (FOLLOWER unless it coordinates)
 * @param epoch  the epoch it coordinates under, −1 if it never won
 * @param groups the groups it coordinates (empty for a follower)
 */
public record BrokerStatus(int brokerId, Coordinator.Role role, int epoch, SortedMap<String, GroupView> groups) {

    /** True while this broker is the coordinator (loading, waiting out leases, active or handing over). */
    public boolean coordinating() {
        return role != Coordinator.Role.FOLLOWER && role != Coordinator.Role.CLOSED;
    }
}
