package shepherd.testkit;

import java.util.List;
import java.util.Objects;

/**
 * Thrown by {@link InvariantChecker#assertOk} (and by a fail-fast checker at the first violation). An
 * {@link AssertionError}, so test frameworks report it as a failed check, not as an error of the harness. The
 * message starts with the context the caller gave (the simulation passes {@code "reproduce with seed=N"}) and lists
 * the violations.
 */
public final class InvariantViolationException extends AssertionError {
    /** At most this many violations are spelled out in the message; the rest are counted. */
    static final int LISTED_IN_MESSAGE = 20;

    private final String context;
    private final transient List<Violation> violations;

    /**
     * @param context what the reader needs to reproduce the failure
     * @param violations the violations, first first (at least one)
     * @param total how many violations there were in all ({@code ≥ violations.size()})
     */
    public InvariantViolationException(String context, List<Violation> violations, long total) {
        super(message(context, violations, total));
        this.context = context;
        this.violations = List.copyOf(violations);
    }

    public InvariantViolationException(String context, List<Violation> violations) {
        this(context, violations, violations.size());
    }

    public String context() {
        return context;
    }

    /** The violations this exception reports, first first. */
    public List<Violation> violations() {
        return violations;
    }

    private static String message(String context, List<Violation> violations, long total) {
        Objects.requireNonNull(violations, "violations must not be null");
        StringBuilder message = new StringBuilder();
        message.append(total).append(total == 1 ? " invariant violation" : " invariant violations");
        message.append(" (").append(context).append("):");
        int listed = 0;
        for (Violation violation : violations) {
            if (listed == LISTED_IN_MESSAGE) {
                break;
            }
            message.append("\n  - ").append(violation);
            listed++;
        }
        if (total > listed) {
            message.append("\n  ... and ").append(total - listed).append(" more");
        }
        return message.toString();
    }
}
