package shepherd.coordination.group;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import shepherd.coordination.assign.Assignment;

/**
 * One rebalance of one group (seed rebalance steps 4–5 with DESIGN §6's barrier): stop everyone, wait out the
 * leases of whoever could not be stopped, write owners and generation in one fenced multi, start everyone, wait for
 * every StartResponse.
 */
public final class Run {
    enum Phase {
        /** Stop(g) sent; waiting for every participant's StopResponse. */
        STOPPING,
        /** Everyone stopped or failed; waiting until the leases of members we could not stop are surely over. */
        LEASES,
        /** The owners multi is in flight. */
        WRITING,
        /** Start(g+1) sent; waiting for every StartResponse. */
        STARTING
    }

    Phase phase = Phase.STOPPING;
    final int endingGeneration;
    /** Members taking part: connected when the run began; those that leave or fail drop out. */
    final TreeSet<String> participants = new TreeSet<>();
    /** requestId → consumer id of the Stops or Starts still unanswered. */
    final Map<Long, String> awaiting = new HashMap<>();
    Assignment target;

    Run(int endingGeneration) {
        this.endingGeneration = endingGeneration;
    }

    int newGeneration() {
        return endingGeneration + 1;
    }

    void drop(String consumerId) {
        participants.remove(consumerId);
        awaiting.values().removeIf(consumerId::equals);
    }
}
