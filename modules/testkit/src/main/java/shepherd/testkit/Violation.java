package shepherd.testkit;

import java.util.Objects;

/**
 * One broken invariant, observed at simulation time {@code atMs}.
 *
 * @param invariant which invariant of DESIGN §7 broke
 * @param atMs the simulation time of the observation that revealed it
 * @param detail what happened, naming the instances, partitions, epochs or sessions involved
 */
public record Violation(Invariant invariant, long atMs, String detail) {
    public Violation {
        Objects.requireNonNull(invariant, "Violation.invariant must not be null");
        Objects.requireNonNull(detail, "Violation.detail must not be null");
    }

    /** {@code "ExclusiveOwnership at 1200 ms: ..."}. */
    @Override
    public String toString() {
        return invariant + " at " + atMs + " ms: " + detail;
    }
}
