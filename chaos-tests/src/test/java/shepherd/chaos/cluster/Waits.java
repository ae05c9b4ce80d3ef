package shepherd.chaos.cluster;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waiting on a condition with a deadline, the only waiting the chaos suite does. */
public final class Waits {
    private static final long POLL_MS = 50;

    private Waits() {}

    /** Waits until {@code condition} holds; false if {@code timeout} passed first. */
    public static boolean until(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            pause();
        }
        return true;
    }

    /** Like {@link #until} but fails with {@code why}'s text when the deadline passes. */
    public static void require(BooleanSupplier condition, Duration timeout, Supplier<String> why) {
        if (!until(condition, timeout)) {
            throw new IllegalStateException("timed out after " + timeout + ": " + why.get());
        }
    }

    /** Holds a fault for {@code duration}: a nemesis's "for longer than the session timeout" is a span of time. */
    public static void hold(Duration duration) {
        long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < deadline) {
            pause();
        }
    }

    /** The polling interval between looks at a condition. */
    static void pause() {
        try {
            Thread.sleep(POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
        }
    }
}
