package shepherd.examples.harness;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waiting for a condition with a deadline: how the examples' tests synchronise with processes they do not own. */
public final class Await {
    /** How often a condition is checked: a polling interval against a deadline, not a wait for an event. */
    private static final long POLL_MS = 20;

    private Await() {}

    /**
     * Returns as soon as {@code condition} holds; throws {@link AssertionError} with {@code what} (evaluated then,
     * so it can describe the state reached) if it still does not after {@code timeout}.
     */
    public static void until(Duration timeout, Supplier<String> what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + timeout.toMillis() + " ms: " + what.get());
            }
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for: " + what.get(), e);
            }
        }
    }
}
