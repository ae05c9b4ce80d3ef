package shepherd.coordination;

import java.util.EnumSet;
import java.util.Set;

/**
 * A group's rebalance trigger (DESIGN §6). The seed keeps one bit per group and drops a trigger that arrives while
 * the group rebalances ({@code compareAndSet(false, true)} fails, defect D1); the fourth state remembers it:
 * <ol>
 *   <li>the run reads the members {A, B} and stops them;</li>
 *   <li>C registers; the seed's CAS fails, the trigger is lost;</li>
 *   <li>the run ends with A and B started; C waits for ever (NoLostTrigger).</li>
 * </ol>
 * With RUNNING_DIRTY, step 3 queues one more run, which sees C.
 */
public enum TriggerState {
    IDLE,
    QUEUED,
    RUNNING,
    RUNNING_DIRTY;

    private Set<TriggerState> next() {
        return switch (this) {
            case IDLE -> EnumSet.of(QUEUED);
            case QUEUED -> EnumSet.of(RUNNING, IDLE);
            case RUNNING -> EnumSet.of(RUNNING_DIRTY, IDLE, QUEUED);
            case RUNNING_DIRTY -> EnumSet.of(QUEUED, IDLE);
        };
    }

    public TriggerState transitionTo(TriggerState to) {
        if (!next().contains(to)) {
            throw new IllegalStateException("Cannot transition from " + this + " to " + to);
        }
        return to;
    }

    public boolean running() {
        return this == RUNNING || this == RUNNING_DIRTY;
    }
}
