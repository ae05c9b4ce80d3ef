package shepherd.testkit;

/**
 * The safety invariants of DESIGN §7, under the names the TLA+ spec, the simulation and the chaos checkers share.
 * {@link InvariantChecker} reports every {@link Violation} against one of these.
 */
public enum Invariant {
    /** Every observed value is in its domain: ids present, epochs, generations, offsets and times non-negative. */
    TypeOK,
    /** For every group and partition, the fetch intervals of different consumer instances never overlap. */
    ExclusiveOwnership,
    /**
     * ZooKeeper never holds a coordinator write whose epoch was stale when it committed; a committed offset never
     * decreases; offsets are written only for the partition's owner.
     */
    FencedWrites,
    /** Each epoch belongs to one broker incarnation; successive election wins have strictly increasing epochs. */
    OneCoordinatorPerEpoch,
    /**
     * A consumer never applies a command whose epoch is below the highest it has seen, nor a Start of a generation
     * it was not stopped for.
     */
    NoStaleCommandApplied,
    /**
     * Start for a partition is sent only after its previous owner acknowledged Stop (and so holds nothing) or its
     * lease surely expired.
     */
    BarrierSound,
    /** Every subscribed partition has exactly one owning stream; only subscribed streams own. */
    AssignmentWellFormed
}
