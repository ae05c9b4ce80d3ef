package shepherd.testkit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import shepherd.coordination.assign.Assignment;
import shepherd.coordination.assign.AssignmentInput;
import shepherd.coordination.assign.AssignmentInvariants;

/**
 * The online checker of DESIGN §7's safety invariants ({@link Invariant}): the deterministic simulation feeds it
 * observations as they happen, and it records a {@link Violation} the moment an observation breaks an invariant.
 *
 * <p><b>Time.</b> Every {@code nowMs} comes from the simulation's single clock (all simulated clocks run at the same
 * rate), so observations must arrive with non-decreasing times; a time that goes back is a {@link Invariant#TypeOK}
 * violation. Observations of the same instant are taken in the order they are fed, which must be the order in which
 * they happened (a Stop handled before the Start it allowed).
 *
 * <p><b>Fetch intervals.</b> A consumer instance (one incarnation of a consumer id, e.g. {@code "c1#2"}) fetches a
 * partition from {@link #fetchStarted} until {@link #fetchStopped}, {@link #instanceGone} or its lease deadline,
 * whichever comes first: its fetcher never fetches past the deadline. {@link #leaseRenewed} at a time no later than
 * the deadline moves the deadline of every interval the instance still holds; a renewal after the deadline starts
 * nothing. Two intervals overlap when they share more than one instant; intervals that merely touch
 * ({@code end == start}) do not.
 *
 * <p><b>Domains.</b> Bad inputs (a null id, a negative epoch, generation, offset or time) are recorded as
 * {@link Invariant#TypeOK} violations, never thrown, and the observation is otherwise ignored.
 *
 * <p><b>Cost.</b> Each observation costs O(holders of the partitions it names) (plus the size of the assignment for
 * {@link #assignmentComputed}), never O(history): stopped intervals are dropped at once, intervals whose lease ran
 * out when an observation next meets them. At most {@link #MAX_RECORDED} violations are kept; the rest are only
 * counted ({@link #violationCount}).
 *
 * <p>Not thread-safe: the simulation is single-threaded.
 */
public final class InvariantChecker {
    /** Violations kept in {@link #violations()}; later ones are counted, not kept. */
    public static final int MAX_RECORDED = 10_000;

    /** Problems of one assignment spelled out in its violation's detail; the rest are counted. */
    private static final int ASSIGNMENT_PROBLEMS_LISTED = 10;

    private static final Set<String> COMMAND_KINDS = Set.of("Ping", "Stop", "Start");

    private final boolean failFast;
    private final String failFastContext;
    private final List<Violation> violations = new ArrayList<>();
    private long violationCount;
    private long lastNowMs = Long.MIN_VALUE;

    // ExclusiveOwnership, BarrierSound: the intervals not known to have ended, by partition and by instance.
    private final Map<PartitionKey, Map<String, Interval>> intervalsByPartition = new HashMap<>();
    private final Map<String, Holder> holdersByInstance = new HashMap<>();

    // OneCoordinatorPerEpoch.
    private final Map<Integer, String> incarnationByEpoch = new HashMap<>();
    private final Set<String> reportedEpochConflicts = new HashSet<>();

    // FencedWrites: the current (highest) epoch and the ZooKeeper session whose commit made it current.
    private boolean epochBumpedOnce;
    private int currentEpoch;
    private long currentEpochSession;

    /** A checker that collects every violation; call {@link #assertOk} at the end. */
    public InvariantChecker() {
        this(false);
    }

    /**
     * @param failFast throw {@link InvariantViolationException} at the first violation (from the observation method
     *     that found it) instead of collecting
     */
    public InvariantChecker(boolean failFast) {
        this(failFast, "fail-fast");
    }

    /**
     * @param failFast as for {@link #InvariantChecker(boolean)}
     * @param failFastContext the context a fail-fast exception names (e.g. {@code "reproduce with seed=N"})
     */
    public InvariantChecker(boolean failFast, String failFastContext) {
        this.failFast = failFast;
        this.failFastContext = failFastContext;
    }

    // ---------------------------------------------------------------------------------------------------- fetching

    /**
     * {@code instance} (of consumer {@code consumerId}) starts fetching a partition with its lease running to
     * {@code leaseDeadlineMs}. Serves {@link Invariant#ExclusiveOwnership}: the new interval must not overlap another
     * instance's interval of the same group and partition. A start for a partition the instance already fetches
     * continues that interval with the given deadline.
     */
    public void fetchStarted(String instance, String consumerId, String group, String topic, String partition,
            long nowMs, long leaseDeadlineMs) {
        if (!check("fetchStarted", nowMs).id("instance", instance).id("consumerId", consumerId).id("group", group)
                .id("topic", topic).id("partition", partition).nonNegative("leaseDeadlineMs", leaseDeadlineMs)
                .ok()) {
            return;
        }
        Holder holder = holdersByInstance.get(instance);
        if (holder == null) {
            holder = new Holder(consumerId);
            holdersByInstance.put(instance, holder);
        } else if (!holder.consumerId.equals(consumerId)) {
            record(Invariant.TypeOK, nowMs, "fetchStarted: instance " + instance + " is of consumer "
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

    /**
     * {@code instance} received a valid ping: its lease now runs to {@code leaseDeadlineMs}. Extends every interval
     * the instance holds that has not ended (stopped, or past its deadline). Serves
     * {@link Invariant#ExclusiveOwnership}: an extension must not reach into another instance's interval.
     */
    public void leaseRenewed(String instance, long nowMs, long leaseDeadlineMs) {
        if (!check("leaseRenewed", nowMs).id("instance", instance).nonNegative("leaseDeadlineMs", leaseDeadlineMs)
                .ok()) {
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

    /** {@code instance} stopped fetching a partition: its interval ends now. Serves ExclusiveOwnership, BarrierSound. */
    public void fetchStopped(String instance, String group, String topic, String partition, long nowMs) {
        if (!check("fetchStopped", nowMs).id("instance", instance).id("group", group).id("topic", topic)
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

    /** {@code instance} crashed or was shut down: every interval it holds ends now. Serves ExclusiveOwnership, BarrierSound. */
    public void instanceGone(String instance, long nowMs) {
        if (!check("instanceGone", nowMs).id("instance", instance).ok()) {
            return;
        }
        Holder holder = holdersByInstance.remove(instance);
        if (holder != null) {
            holder.intervals.values().forEach(this::removeFromPartition);
        }
    }

    // ---------------------------------------------------------------------------------------------------- commands

    /**
     * A coordinator sent Start to {@code consumerId} for {@code topicPartitions} ({@code {topic, partition}} pairs).
     * Serves {@link Invariant#BarrierSound}: no instance of another consumer may still hold one of those partitions
     * with a lease running past now (it must have acknowledged Stop, and so hold nothing, or its lease must have
     * expired). Also serves {@link Invariant#OneCoordinatorPerEpoch} like {@link #commandSent}.
     */
    public void startSent(String brokerIncarnation, int epoch, String group, String consumerId,
            List<String[]> topicPartitions, long nowMs) {
        Check check = check("startSent", nowMs).id("brokerIncarnation", brokerIncarnation)
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
        claimEpoch(brokerIncarnation, epoch, nowMs, "sent Start");
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
                    record(Invariant.BarrierSound, nowMs, brokerIncarnation + " (epoch " + epoch + ") sent Start for "
                            + key + " to consumer " + consumerId + " while instance " + holder.instance
                            + " of consumer " + holder.consumerId + " still fetches it (since " + holder.startMs
                            + " ms, lease to " + holder.deadlineMs + " ms)");
                }
            }
            if (holders.isEmpty()) {
                intervalsByPartition.remove(key);
            }
        }
    }

    /**
     * {@code brokerIncarnation} sent a Ping, Stop or Start with {@code epoch}. Serves
     * {@link Invariant#OneCoordinatorPerEpoch}: an epoch already used by another incarnation may not be used again.
     */
    public void commandSent(String brokerIncarnation, int epoch, long nowMs) {
        if (check("commandSent", nowMs).id("brokerIncarnation", brokerIncarnation).nonNegative("epoch", epoch).ok()) {
            claimEpoch(brokerIncarnation, epoch, nowMs, "sent a command");
        }
    }

    /**
     * {@code brokerIncarnation} won the election with {@code epoch}. Serves {@link Invariant#OneCoordinatorPerEpoch}:
     * no epoch is won twice or used by another incarnation, and successive wins have strictly increasing epochs.
     */
    public void electionWon(String brokerIncarnation, int epoch, long nowMs) {
        if (!check("electionWon", nowMs).id("brokerIncarnation", brokerIncarnation).nonNegative("epoch", epoch)
                .ok()) {
            return;
        }
        // Only the claim is judged here. The order in which brokers *learn* of their wins is not: a paused winner
        // learns of an older win after a newer broker won (it is deposed, and can command no one); the order of
        // the wins themselves is ZooKeeper's, judged in epochBumped.
        claimEpoch(brokerIncarnation, epoch, nowMs, "won the election");
    }

    // ------------------------------------------------------------------------------------------------ consumer side

    /**
     * A consumer instance applied a command. Serves {@link Invariant#NoStaleCommandApplied}: the command's epoch
     * must not be below the highest the consumer had seen ({@code highestEpochSeenBefore}, −1 when none), and a
     * Start may be applied only by a consumer that was registered and idle, or stopped, in the generation the Start
     * follows ({@code stoppedForPreviousGeneration}, computed by the caller).
     *
     * @param kind {@code "Ping"}, {@code "Stop"} or {@code "Start"}
     */
    public void commandApplied(String instance, String kind, int epoch, int highestEpochSeenBefore, int generation,
            boolean stoppedForPreviousGeneration, long nowMs) {
        Check check = check("commandApplied", nowMs).id("instance", instance).id("kind", kind)
                .nonNegative("epoch", epoch).nonNegative("generation", generation);
        if (kind != null && !COMMAND_KINDS.contains(kind)) {
            check.problem("kind is " + kind + ", not Ping, Stop or Start");
        }
        if (highestEpochSeenBefore < -1) {
            check.problem("highestEpochSeenBefore is " + highestEpochSeenBefore + " < -1");
        }
        if (!check.ok()) {
            return;
        }
        if (epoch < highestEpochSeenBefore) {
            record(Invariant.NoStaleCommandApplied, nowMs, instance + " applied " + kind + " of epoch " + epoch
                    + " (generation " + generation + ") after seeing epoch " + highestEpochSeenBefore);
        }
        if (kind.equals("Start") && !stoppedForPreviousGeneration) {
            record(Invariant.NoStaleCommandApplied, nowMs, instance + " applied Start of generation " + generation
                    + " (epoch " + epoch + ") without being stopped for the generation it follows");
        }
    }

    // ------------------------------------------------------------------------------------------- ZooKeeper commits

    /**
     * ZooKeeper committed the conditional write that made {@code epoch} current, by session {@code sessionId} of
     * {@code brokerIncarnation}. Serves {@link Invariant#FencedWrites} (an epoch write that does not raise the epoch
     * is a stale write that committed) and {@link Invariant#OneCoordinatorPerEpoch} (the epoch is that incarnation's).
     */
    public void epochBumped(long sessionId, String brokerIncarnation, int epoch, long nowMs) {
        if (!check("epochBumped", nowMs).id("brokerIncarnation", brokerIncarnation).nonNegative("epoch", epoch)
                .ok()) {
            return;
        }
        claimEpoch(brokerIncarnation, epoch, nowMs, "bumped the epoch to it");
        if (epochBumpedOnce && epoch <= currentEpoch) {
            record(Invariant.FencedWrites, nowMs, "session " + session(sessionId) + " of " + brokerIncarnation
                    + " committed epoch " + epoch + " although epoch " + currentEpoch + " was already current");
            return;
        }
        epochBumpedOnce = true;
        currentEpoch = epoch;
        currentEpochSession = sessionId;
    }

    /**
     * ZooKeeper committed a coordinator write (owners, generation, registrations, offsets of {@code group}) by
     * session {@code sessionId}. Serves {@link Invariant#FencedWrites}: only the session that bumped the current
     * epoch may commit one.
     */
    public void coordinatorWriteCommitted(long sessionId, String group, long nowMs) {
        if (!check("coordinatorWriteCommitted", nowMs).id("group", group).ok()) {
            return;
        }
        if (!epochBumpedOnce) {
            record(Invariant.FencedWrites, nowMs, "session " + session(sessionId)
                    + " committed a coordinator write for group " + group + " before any epoch was bumped");
        } else if (sessionId != currentEpochSession) {
            record(Invariant.FencedWrites, nowMs, "session " + session(sessionId)
                    + " committed a coordinator write for group " + group + " but the current epoch " + currentEpoch
                    + " was bumped by session " + session(currentEpochSession));
        }
    }

    /**
     * ZooKeeper committed offset {@code newOffset} for a partition. Serves {@link Invariant#FencedWrites}: a
     * committed offset never decreases, and it is written only for the partition's owner at commit time.
     *
     * @param previousOffset the committed offset before this write, {@code null} if none
     * @param reportedByConsumerId the consumer that reported the offset, {@code null} if unknown (skips the owner
     *     clause)
     * @param ownerConsumerIdAtCommit the owner recorded in ZooKeeper when the write committed, {@code null} if none
     */
    public void offsetCommitted(String group, String topic, String partition, Long previousOffset, long newOffset,
            String reportedByConsumerId, String ownerConsumerIdAtCommit, long nowMs) {
        Check check = check("offsetCommitted", nowMs).id("group", group).id("topic", topic).id("partition", partition)
                .nonNegative("newOffset", newOffset);
        if (previousOffset != null) {
            check.nonNegative("previousOffset", previousOffset);
        }
        if (!check.ok()) {
            return;
        }
        PartitionKey key = new PartitionKey(group, topic, partition);
        if (previousOffset != null && newOffset < previousOffset) {
            record(Invariant.FencedWrites, nowMs, "offset of " + key + " went back from " + previousOffset + " to "
                    + newOffset + (reportedByConsumerId == null ? "" : " (reported by " + reportedByConsumerId + ")"));
        }
        if (reportedByConsumerId != null && !reportedByConsumerId.equals(ownerConsumerIdAtCommit)) {
            record(Invariant.FencedWrites, nowMs, "offset " + newOffset + " of " + key + " reported by "
                    + reportedByConsumerId + " committed while "
                    + (ownerConsumerIdAtCommit == null ? "nobody" : ownerConsumerIdAtCommit) + " owned it");
        }
    }

    // -------------------------------------------------------------------------------------------------- assignment

    /**
     * An assignor computed {@code assignment} for {@code group}. Serves {@link Invariant#AssignmentWellFormed} through
     * {@link AssignmentInvariants#wellFormedViolations}: every subscribed partition has an owner, owners are
     * subscribed, no unknown partition is owned. Imbalance is deliberately not checked: it is an assignor property,
     * not a safety invariant. One violation per bad assignment, listing its problems.
     */
    public void assignmentComputed(String group, AssignmentInput input, Assignment assignment, long nowMs) {
        Check check = check("assignmentComputed", nowMs).id("group", group);
        if (input == null) {
            check.problem("input is null");
        }
        if (assignment == null) {
            check.problem("assignment is null");
        }
        if (!check.ok()) {
            return;
        }
        List<AssignmentInvariants.Violation> problems = AssignmentInvariants.wellFormedViolations(input, assignment);
        if (problems.isEmpty()) {
            return;
        }
        StringBuilder detail = new StringBuilder("group ").append(group).append(": ").append(problems.size())
                .append(problems.size() == 1 ? " problem: " : " problems: ");
        for (int i = 0; i < problems.size() && i < ASSIGNMENT_PROBLEMS_LISTED; i++) {
            detail.append(i == 0 ? "" : "; ").append(describe(problems.get(i)));
        }
        if (problems.size() > ASSIGNMENT_PROBLEMS_LISTED) {
            detail.append("; and ").append(problems.size() - ASSIGNMENT_PROBLEMS_LISTED).append(" more");
        }
        record(Invariant.AssignmentWellFormed, nowMs, detail.toString());
    }

    // ------------------------------------------------------------------------------------------------------ TypeOK

    /** Records a {@link Invariant#TypeOK} violation with {@code detail} when {@code condition} is false. */
    public void typeOk(boolean condition, String detail, long nowMs) {
        if (!condition) {
            record(Invariant.TypeOK, nowMs, detail == null ? "(no detail)" : detail);
        }
    }

    // ----------------------------------------------------------------------------------------------------- results

    /** The violations found so far, first first (at most {@link #MAX_RECORDED}); an unmodifiable live view. */
    public List<Violation> violations() {
        return Collections.unmodifiableList(violations);
    }

    /** How many violations were found, including those beyond {@link #MAX_RECORDED}. */
    public long violationCount() {
        return violationCount;
    }

    public boolean ok() {
        return violationCount == 0;
    }

    public Optional<Violation> first() {
        return violations.isEmpty() ? Optional.empty() : Optional.of(violations.get(0));
    }

    /**
     * @param context what a reader needs to reproduce the run (the simulation passes {@code "reproduce with seed=N"})
     * @throws InvariantViolationException naming {@code context} and listing the violations, if there are any
     */
    public void assertOk(String context) {
        if (!ok()) {
            throw new InvariantViolationException(context, violations, violationCount);
        }
    }

    // ----------------------------------------------------------------------------------------------------- helpers

    private void record(Invariant invariant, long atMs, String detail) {
        Violation violation = new Violation(invariant, atMs, detail);
        violationCount++;
        if (violations.size() < MAX_RECORDED) {
            violations.add(violation);
        }
        if (failFast) {
            throw new InvariantViolationException(failFastContext, List.of(violation));
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
                record(Invariant.ExclusiveOwnership, nowMs, interval.key + ": fetch interval of " + interval.instance
                        + " of consumer " + interval.consumerId + " (since " + interval.startMs + " ms, lease to "
                        + interval.deadlineMs + " ms), " + how + ", overlaps that of " + other);
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

    /**
     * Gives {@code epoch} to {@code incarnation} if nobody has it; reports (once per epoch and incarnation) a use by
     * another incarnation. Returns whether the epoch is {@code incarnation}'s.
     */
    private boolean claimEpoch(String incarnation, int epoch, long nowMs, String what) {
        String owner = incarnationByEpoch.putIfAbsent(epoch, incarnation);
        if (owner == null || owner.equals(incarnation)) {
            return true;
        }
        if (reportedEpochConflicts.add(epoch + "\u0000" + incarnation)) {
            record(Invariant.OneCoordinatorPerEpoch, nowMs,
                    "epoch " + epoch + " belongs to " + owner + " but " + incarnation + " " + what + " with it");
        }
        return false;
    }

    private static String describe(AssignmentInvariants.Violation problem) {
        if (problem instanceof AssignmentInvariants.Unowned unowned) {
            return "partition " + unowned.partition() + " has no owner";
        }
        if (problem instanceof AssignmentInvariants.OwnedByUnsubscribed owned) {
            return "partition " + owned.partition() + " is owned by " + owned.owner()
                    + ", which is not subscribed to its topic";
        }
        if (problem instanceof AssignmentInvariants.UnknownPartition unknown) {
            return "unknown partition " + unknown.partition() + " is owned by " + unknown.owner();
        }
        return problem.toString();
    }

    private static String session(long sessionId) {
        return "0x" + Long.toHexString(sessionId);
    }

    private Check check(String observation, long nowMs) {
        return new Check(observation, nowMs);
    }

    /** Collects an observation's domain problems; {@link #ok} records them as one TypeOK violation. */
    private final class Check {
        private final String observation;
        private final long nowMs;
        private StringBuilder problems;

        Check(String observation, long nowMs) {
            this.observation = observation;
            this.nowMs = nowMs;
        }

        Check id(String name, String value) {
            if (value == null) {
                problem(name + " is null");
            }
            return this;
        }

        Check nonNegative(String name, long value) {
            if (value < 0) {
                problem(name + " is " + value + " < 0");
            }
            return this;
        }

        void problem(String problem) {
            if (problems == null) {
                problems = new StringBuilder(observation).append(": ");
            } else {
                problems.append("; ");
            }
            problems.append(problem);
        }

        /** Records the problems, if any; checks the time too. Returns whether the observation may be processed. */
        boolean ok() {
            if (nowMs < 0) {
                problem("nowMs is " + nowMs + " < 0");
            } else if (nowMs < lastNowMs) {
                problem("time went back from " + lastNowMs + " ms to " + nowMs + " ms");
            }
            if (problems != null) {
                record(Invariant.TypeOK, nowMs, problems.toString());
                return false;
            }
            lastNowMs = nowMs;
            return true;
        }
    }

    /** A group's partition, as the observations name it. */
    private record PartitionKey(String group, String topic, String partition) {
        @Override
        public String toString() {
            return group + ":" + topic + "/" + partition;
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
