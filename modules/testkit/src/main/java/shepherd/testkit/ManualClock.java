package shepherd.testkit;

import java.util.function.LongSupplier;

/**
 * A clock that moves only when told to: the time source of every unit test and of the simulation. Monotonic by
 * construction; {@link #advanceTo} refuses to go back, so a test that tries is a broken test, not a quiet bug.
 */
public final class ManualClock implements LongSupplier {
    private long nowMs;

    public ManualClock(long startMs) {
        this.nowMs = startMs;
    }

    public long nowMs() {
        return nowMs;
    }

    @Override
    public long getAsLong() {
        return nowMs;
    }

    public void advanceBy(long deltaMs) {
        if (deltaMs < 0) {
            throw new IllegalArgumentException("cannot advance a clock by a negative " + deltaMs + " ms");
        }
        nowMs += deltaMs;
    }

    public void advanceTo(long targetMs) {
        if (targetMs < nowMs) {
            throw new IllegalArgumentException("cannot move a clock back from " + nowMs + " to " + targetMs + " ms");
        }
        nowMs = targetMs;
    }
}
