package shepherd.cli.demo;

import java.util.List;
import java.util.Optional;
import shepherd.consumer.ConsumerStatus;

/**
 * Measures one group's rebalances from its members' statuses, the way the applications live them.
 *
 * <p>The group is <em>settled</em> when every live member that has registered at least once is {@code FETCHING}
 * under one (coordinator epoch, generation). A rebalance starts at the first sample where the group is not settled
 * (a member got Stop, lost its coordinator, or a new member registered) and ends at the first sample where it is
 * settled again under a different (epoch, generation). An unsettled spell that ends under the same pair (a blip) is
 * not counted. Members that left or were killed drop out at once; so the failure-detection time of a killed member
 * (missed pings) is not part of its rebalance, while a coordinator failover's election and lease wait are.
 */
final class GroupTracker {
    /** A finished rebalance, in sample times ({@link System#nanoTime()}). */
    record Settled(String group, String cause, int fromEpoch, int fromGeneration, int epoch, int generation,
                   long startNanos, long endNanos) {}

    private final String group;
    private int epoch = -1;
    private int generation = -1;
    private long startNanos = -1;
    private String cause;

    GroupTracker(String group) {
        this.group = group;
    }

    /**
     * Feeds one sample.
     *
     * @param cause the latest scripted event, remembered if a rebalance starts with this sample
     * @return the rebalance this sample completes, if any
     */
    Optional<Settled> sample(List<Monitor.MemberView> members, long nowNanos, String cause) {
        List<ConsumerStatus> counted = members.stream()
                .filter(m -> m.fate() == Member.Fate.RUNNING)
                .map(Monitor.MemberView::status)
                .filter(s -> s.registrations() > 0 || !s.state().equals("DISCOVERING")
                        && !s.state().equals("REGISTERING"))
                .toList();
        if (counted.isEmpty()) {
            return Optional.empty();
        }
        ConsumerStatus first = counted.get(0);
        boolean settled = counted.stream().allMatch(s -> s.state().equals("FETCHING")
                && s.generation() == first.generation() && s.coordinatorEpoch() == first.coordinatorEpoch());
        if (!settled) {
            if (startNanos < 0) {
                startNanos = nowNanos;
                this.cause = cause;
            }
            return Optional.empty();
        }
        if (first.generation() == generation && first.coordinatorEpoch() == epoch) {
            startNanos = -1; // a blip: back where it was
            return Optional.empty();
        }
        long start = startNanos < 0 ? nowNanos : startNanos;
        Settled done = new Settled(group, startNanos < 0 ? cause : this.cause, epoch, generation,
                first.coordinatorEpoch(), first.generation(), start, nowNanos);
        epoch = first.coordinatorEpoch();
        generation = first.generation();
        startNanos = -1;
        return Optional.of(done);
    }
}
