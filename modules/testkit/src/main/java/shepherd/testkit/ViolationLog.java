package shepherd.testkit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What the {@link InvariantChecker} found, shared by its checks: violations in the order found, at most
 * {@link InvariantChecker#MAX_RECORDED} kept and the rest counted, or in fail-fast mode an exception at the first.
 * It also keeps the time of the last observation taken, which no later one may precede.
 */
final class ViolationLog {
    private final boolean failFast;
    private final String failFastContext;
    private final List<Violation> violations = new ArrayList<>();
    private long violationCount;
    private long lastNowMs = Long.MIN_VALUE;

    ViolationLog(boolean failFast, String failFastContext) {
        this.failFast = failFast;
        this.failFastContext = failFastContext;
    }

    void record(Invariant invariant, long atMs, String detail) {
        Violation violation = new Violation(invariant, atMs, detail);
        violationCount++;
        if (violations.size() < InvariantChecker.MAX_RECORDED) {
            violations.add(violation);
        }
        if (failFast) {
            throw new InvariantViolationException(failFastContext, List.of(violation));
        }
    }

    /** Starts the domain check of one observation; its {@link ObservationCheck#ok} says whether to process it. */
    ObservationCheck check(String observation, long nowMs) {
        return new ObservationCheck(this, observation, nowMs);
    }

    /** An unmodifiable live view. */
    List<Violation> violations() {
        return Collections.unmodifiableList(violations);
    }

    long count() {
        return violationCount;
    }

    long lastNowMs() {
        return lastNowMs;
    }

    void taken(long nowMs) {
        lastNowMs = nowMs;
    }
}
