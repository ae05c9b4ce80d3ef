package shepherd.testkit;

import java.util.List;
import java.util.Optional;
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
 *
 * <p>This class is the API; each invariant family is judged by a package-private class behind it:
 * {@link OwnershipChecks} (ExclusiveOwnership and BarrierSound, on the fetch intervals), {@link EpochChecks}
 * (OneCoordinatorPerEpoch), {@link FencingChecks} (FencedWrites, on ZooKeeper's commits), {@link CommandChecks}
 * (NoStaleCommandApplied) and {@link AssignmentChecks} (AssignmentWellFormed). They share one {@link ViolationLog}, and
 * each observation's TypeOK domain check ({@link ObservationCheck}) comes first.
 */
public final class InvariantChecker {
    /** Violations kept in {@link #violations()}; later ones are counted, not kept. */
    public static final int MAX_RECORDED = 10_000;

    private final ViolationLog log;
    private final EpochChecks epochs;
    private final OwnershipChecks ownership;
    private final FencingChecks fencing;
    private final CommandChecks commands;
    private final AssignmentChecks assignments;

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
        this.log = new ViolationLog(failFast, failFastContext);
        this.epochs = new EpochChecks(log);
        this.ownership = new OwnershipChecks(log, epochs);
        this.fencing = new FencingChecks(log, epochs);
        this.commands = new CommandChecks(log);
        this.assignments = new AssignmentChecks(log);
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
        ownership.fetchStarted(instance, consumerId, group, topic, partition, nowMs, leaseDeadlineMs);
    }

    /**
     * {@code instance} received a valid ping: its lease now runs to {@code leaseDeadlineMs}. Extends every interval
     * the instance holds that has not ended (stopped, or past its deadline). Serves
     * {@link Invariant#ExclusiveOwnership}: an extension must not reach into another instance's interval.
     */
    public void leaseRenewed(String instance, long nowMs, long leaseDeadlineMs) {
        ownership.leaseRenewed(instance, nowMs, leaseDeadlineMs);
    }

    /** {@code instance} stopped fetching a partition: its interval ends now. Serves ExclusiveOwnership, BarrierSound. */
    public void fetchStopped(String instance, String group, String topic, String partition, long nowMs) {
        ownership.fetchStopped(instance, group, topic, partition, nowMs);
    }

    /**
     * {@code instance} crashed or was shut down: every interval it holds ends now. Serves ExclusiveOwnership,
     * BarrierSound.
     */
    public void instanceGone(String instance, long nowMs) {
        ownership.instanceGone(instance, nowMs);
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
        ownership.startSent(brokerIncarnation, epoch, group, consumerId, topicPartitions, nowMs);
    }

    /**
     * {@code brokerIncarnation} sent a Ping, Stop or Start with {@code epoch}. Serves
     * {@link Invariant#OneCoordinatorPerEpoch}: an epoch already used by another incarnation may not be used again.
     */
    public void commandSent(String brokerIncarnation, int epoch, long nowMs) {
        epochs.commandSent(brokerIncarnation, epoch, nowMs);
    }

    /**
     * {@code brokerIncarnation} won the election with {@code epoch}. Serves {@link Invariant#OneCoordinatorPerEpoch}:
     * no epoch is won twice or used by another incarnation, and successive wins have strictly increasing epochs.
     */
    public void electionWon(String brokerIncarnation, int epoch, long nowMs) {
        epochs.electionWon(brokerIncarnation, epoch, nowMs);
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
        commands.commandApplied(instance, kind, epoch, highestEpochSeenBefore, generation,
                stoppedForPreviousGeneration, nowMs);
    }

    // ------------------------------------------------------------------------------------------- ZooKeeper commits

    /**
     * ZooKeeper committed the conditional write that made {@code epoch} current, by session {@code sessionId} of
     * {@code brokerIncarnation}. Serves {@link Invariant#FencedWrites} (an epoch write that does not raise the epoch
     * is a stale write that committed) and {@link Invariant#OneCoordinatorPerEpoch} (the epoch is that incarnation's).
     */
    public void epochBumped(long sessionId, String brokerIncarnation, int epoch, long nowMs) {
        fencing.epochBumped(sessionId, brokerIncarnation, epoch, nowMs);
    }

    /**
     * ZooKeeper committed a coordinator write (owners, generation, registrations, offsets of {@code group}) by
     * session {@code sessionId}. Serves {@link Invariant#FencedWrites}: only the session that bumped the current
     * epoch may commit one.
     */
    public void coordinatorWriteCommitted(long sessionId, String group, long nowMs) {
        fencing.coordinatorWriteCommitted(sessionId, group, nowMs);
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
        fencing.offsetCommitted(group, topic, partition, previousOffset, newOffset, reportedByConsumerId,
                ownerConsumerIdAtCommit, nowMs);
    }

    // -------------------------------------------------------------------------------------------------- assignment

    /**
     * An assignor computed {@code assignment} for {@code group}. Serves {@link Invariant#AssignmentWellFormed} through
     * {@link AssignmentInvariants#wellFormedViolations}: every subscribed partition has an owner, owners are
     * subscribed, no unknown partition is owned. Imbalance is deliberately not checked: it is an assignor property,
     * not a safety invariant. One violation per bad assignment, listing its problems.
     */
    public void assignmentComputed(String group, AssignmentInput input, Assignment assignment, long nowMs) {
        assignments.assignmentComputed(group, input, assignment, nowMs);
    }

    // ------------------------------------------------------------------------------------------------------ TypeOK

    /** Records a {@link Invariant#TypeOK} violation with {@code detail} when {@code condition} is false. */
    public void typeOk(boolean condition, String detail, long nowMs) {
        if (!condition) {
            log.record(Invariant.TypeOK, nowMs, detail == null ? "(no detail)" : detail);
        }
    }

    // ----------------------------------------------------------------------------------------------------- results

    /** The violations found so far, first first (at most {@link #MAX_RECORDED}); an unmodifiable live view. */
    public List<Violation> violations() {
        return log.violations();
    }

    /** How many violations were found, including those beyond {@link #MAX_RECORDED}. */
    public long violationCount() {
        return log.count();
    }

    public boolean ok() {
        return log.count() == 0;
    }

    public Optional<Violation> first() {
        List<Violation> violations = log.violations();
        return violations.isEmpty() ? Optional.empty() : Optional.of(violations.get(0));
    }

    /**
     * @param context what a reader needs to reproduce the run (the simulation passes {@code "reproduce with seed=N"})
     * @throws InvariantViolationException naming {@code context} and listing the violations, if there are any
     */
    public void assertOk(String context) {
        if (!ok()) {
            throw new InvariantViolationException(context, log.violations(), log.count());
        }
    }
}
