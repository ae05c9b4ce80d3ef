package shepherd.coordination.assign;

/**
 * A partition assignment strategy: the service behind a group's {@code assignor} name (DESIGN §6, seed rebalance
 * step 2). Implementations are found with {@link java.util.ServiceLoader}; see {@link Assignors} and
 * docs/assignors.md for how to plug one in.
 *
 * <p>Contract, relied upon by the coordinator and checked by the tests:
 * <ol>
 *   <li>{@link #assign} is a pure function of its input: no I/O, no clock, no randomness, no state kept between
 *       calls, so the broker, the simulation and a replay compute the same owners. Implementations are therefore
 *       safe to share between threads.
 *   <li>Every partition of every topic that has at least one subscribed stream gets exactly one owner, and only
 *       streams subscribed to the partition's topic own anything ({@code AssignmentWellFormed}, DESIGN §7).
 *   <li>The result does not depend on the order of the input's collections (the input is normalised anyway).
 * </ol>
 */
public interface Assignor {

    /** The name groups select this assignor by: lower case, unique among the installed assignors. */
    String name();

    Assignment assign(AssignmentInput input);
}
