package shepherd.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * {@link Invariant#ExclusiveOwnership} and {@link Invariant#BarrierSound}, both judged on the fetch intervals not
 * known to have ended, kept by partition and by instance: a new or extended interval must not overlap another
 * instance's interval of the same partition, and a Start must not give a partition to a consumer while another
 * consumer's instance still holds it on a running lease.
 *
 * <p>An interval is dropped when it stops, or when an observation next meets it past its deadline, so each
 * observation costs O(holders of the partitions it names), never O(history).
 */
final class OwnershipChecks {
    private final ViolationLog log;
    private final EpochChecks epochs;
    private final Map<PartitionKey, Map<String, Interval>> intervalsByPartition = new HashMap<>();
    private final Map<String, Holder> holdersByInstance = new HashMap<>();

    OwnershipChecks(ViolationLog log, EpochChecks epochs) {
        this.log = log;
        this.epochs = epochs;
    }

    void fetchStarted(String instance, String consumerId, String group, String topic, String partition, long nowMs,
            long leaseDeadlineMs) {
        if (!log.check("fetchStarted", nowMs).id("instance", instance).id("consumerId", consumerId)
                .id("group", group).id("topic", topic).id("partition", partition)
                .nonNegative("leaseDeadlineMs", leaseDeadlineMs).ok()) {
            return;
        }
        Holder holder = holdersByInstance.get(instance);
        if (holder == null) {
            holder = new Holder(consumerId);
            holdersByInstance.put(instance, holder);
        } else if (!holder.consumerId.equals(consumerId)) {
            log.record(Invariant.TypeOK, nowMs, "fetchStarted: instance " + instance + " is of consumer "
                    + holder.consumerId + " but now reported as of consumer " + consumerId);
        }
        PartitionKey key = new PartitionKey(group, topic, partition);
        Interval interval = holder.intervals.get(key);
        long deadline = Math.max(nowMs, leaseDeadlineMs);
        if (interval != null && interval.deadlineMs >= nowMs) {
            long previousEnd = interval.deadlineMs;
            interval.deadlineMs = deadline;
            if (deadline > previousEnd) {
                checkNewOverlaps(interval, previousEnd, nowMs, "extended by fetchStarted");
            }
            return;
        }
        interval = new Interval(instance, holder.consumerId, key, nowMs, deadline);
        holder.intervals.put(key, interval);
        intervalsByPartition.computeIfAbsent(key, k -> new HashMap<>(4)).put(instance, interval);
        checkNewOverlaps(interval, Long.MIN_VALUE, nowMs, "started");
    }

    void leaseRenewed(String instance, long nowMs, long leaseDeadlineMs) {
        if (!log.check("leaseRenewed", nowMs).id("instance", instance)
                .nonNegative("leaseDeadlineMs", leaseDeadlineMs).ok()) {
            return;
        }
        Holder holder = holdersByInstance.get(instance);
        if (holder == null) {
            return;
        }
        long deadline = Math.max(nowMs, leaseDeadlineMs);
        List<Interval> extended = new ArrayList<>();
        List<Long> previousEnds = new ArrayList<>();
        for (Iterator<Interval> it = holder.intervals.values().iterator(); it.hasNext(); ) {
            Interval interval = it.next();
            if (interval.deadlineMs < nowMs) { // ended at its old deadline; the renewal starts nothing
                it.remove();
                removeFromPartition(interval);
            } else if (deadline != interval.deadlineMs) {
                if (deadline > interval.deadlineMs) {
                    extended.add(interval);
                    previousEnds.add(interval.deadlineMs);
                }
                interval.deadlineMs = deadline;
            }
        }
        for (int i = 0; i < extended.size(); i++) {
            checkNewOverlaps(extended.get(i), previousEnds.get(i), nowMs, "extended by a lease renewal");
        }
        if (holder.intervals.isEmpty()) {
            holdersByInstance.remove(instance);
        }
    }

    void fetchStopped(String instance, String group, String topic, String partition, long nowMs) {
        if (!log.check("fetchStopped", nowMs).id("instance", instance).id("group", group).id("topic", topic)
                .id("partition", partition).ok()) {
            return;
        }
        Holder holder = holdersByInstance.get(instance);
        if (holder == null) {
            return;
        }
        Interval interval = holder.intervals.remove(new PartitionKey(group, topic, partition));
        if (interval != null) {
            removeFromPartition(interval);
        }
        if (holder.intervals.isEmpty()) {
            holdersByInstance.remove(instance);
        }
    }

    void instanceGone(String instance, long nowMs) {
        if (!log.check("instanceGone", nowMs).id("instance", instance).ok()) {
            return;
        }
        Holder holder = holdersByInstance.remove(instance);
        if (holder != null) {
            holder.intervals.values().forEach(this::removeFromPartition);
        }
    }

    /** Judges BarrierSound; the epoch the Start carries is {@link EpochChecks#claim claimed} as any command's. */
    void startSent(String brokerIncarnation, int epoch, String group, String consumerId,
            List<String[]> topicPartitions, long nowMs) {
        ObservationCheck check = log.check("startSent", nowMs).id("brokerIncarnation", brokerIncarnation)
                .nonNegative("epoch", epoch).id("group", group).id("consumerId", consumerId);
        if (topicPartitions == null) {
            check.problem("topicPartitions is null");
        } else {
            for (String[] pair : topicPartitions) {
                if (pair == null || pair.length != 2 || pair[0] == null || pair[1] == null) {
                    check.problem("topicPartitions holds " + (pair == null ? "null" : List.of(pair).toString())
                            + ", not a {topic, partition} pair");
                }
            }
        }
        if (!check.ok()) {
            return;
        }
        epochs.claim(brokerIncarnation, epoch, nowMs, "sent Start");
        for (String[] pair : topicPartitions) {
            PartitionKey key = new PartitionKey(group, pair[0], pair[1]);
            Map<String, Interval> holders = intervalsByPartition.get(key);
            if (holders == null) {
                continue;
            }
            for (Iterator<Interval> it = holders.values().iterator(); it.hasNext(); ) {
                Interval holder = it.next();
                if (holder.deadlineMs < nowMs) {
                    it.remove();
                    removeFromHolder(holder);
                } else if (!holder.consumerId.equals(consumerId) && holder.deadlineMs > nowMs) {
                    log.record(Invariant.BarrierSound, nowMs, brokerIncarnation + " (epoch " + epoch
                            + ") sent Start for " + key + " to consumer " + consumerId + " while instance "
                            + holder.instance + " of consumer " + holder.consumerId + " still fetches it (since "
                            + holder.startMs + " ms, lease to " + holder.deadlineMs + " ms)");
                }
            }
            if (holders.isEmpty()) {
                intervalsByPartition.remove(key);
            }
        }
    }

    /**
     * Reports an overlap between {@code interval} (just started, or extended from {@code previousEnd}) and another
     * instance's interval of the same partition, unless the two overlapped already before (then it was reported).
     * Drops intervals found ended on the way.
     */
    private void checkNewOverlaps(Interval interval, long previousEnd, long nowMs, String how) {
        Map<String, Interval> holders = intervalsByPartition.get(interval.key);
        if (holders == null) {
            return;
        }
        List<String> overlaps = null;
        for (Iterator<Interval> it = holders.values().iterator(); it.hasNext(); ) {
            Interval other = it.next();
            if (other == interval) {
                continue;
            }
            if (other.deadlineMs < nowMs) {
                it.remove();
                removeFromHolder(other);
                continue;
            }
            long latestStart = Math.max(interval.startMs, other.startMs);
            boolean before = Math.min(previousEnd, other.deadlineMs) > latestStart;
            boolean after = Math.min(interval.deadlineMs, other.deadlineMs) > latestStart;
            if (after && !before) {
                if (overlaps == null) {
                    overlaps = new ArrayList<>(1);
                }
                overlaps.add(other.instance + " of consumer " + other.consumerId + " (since " + other.startMs
                        + " ms, lease to " + other.deadlineMs + " ms)");
            }
        }
        if (overlaps != null) {
            for (String other : overlaps) {
                log.record(Invariant.ExclusiveOwnership, nowMs, interval.key + ": fetch interval of "
                        + interval.instance + " of consumer " + interval.consumerId + " (since " + interval.startMs
                        + " ms, lease to " + interval.deadlineMs + " ms), " + how + ", overlaps that of " + other);
            }
        }
    }

    private void removeFromPartition(Interval interval) {
        Map<String, Interval> holders = intervalsByPartition.get(interval.key);
        if (holders != null && holders.get(interval.instance) == interval) {
            holders.remove(interval.instance);
            if (holders.isEmpty()) {
                intervalsByPartition.remove(interval.key);
            }
        }
    }

    private void removeFromHolder(Interval interval) {
        Holder holder = holdersByInstance.get(interval.instance);
        if (holder != null && holder.intervals.get(interval.key) == interval) {
            holder.intervals.remove(interval.key);
            if (holder.intervals.isEmpty()) {
                holdersByInstance.remove(interval.instance);
            }
        }
    }

    /** A fetch interval not known to have ended: [startMs, min(stop, deadlineMs)]. */
    private static final class Interval {
        final String instance;
        final String consumerId;
        final PartitionKey key;
        final long startMs;
        long deadlineMs;

        Interval(String instance, String consumerId, PartitionKey key, long startMs, long deadlineMs) {
            this.instance = instance;
            this.consumerId = consumerId;
            this.key = key;
            this.startMs = startMs;
            this.deadlineMs = deadlineMs;
        }
    }

    /** One consumer instance and the intervals it holds. */
    private static final class Holder {
        final String consumerId;
        final Map<PartitionKey, Interval> intervals = new HashMap<>(8);

        Holder(String consumerId) {
            this.consumerId = consumerId;
        }
    }
}
