package shepherd.chaos.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Waits for a condition by polling it until a deadline: how the cluster fixtures wait for processes and quorums
 * without guessing how long anything takes on a loaded machine.
 */
final class Await {
    /** Short enough not to add latency that matters, long enough not to burn a shared core. */
    static final Duration POLL_INTERVAL = Duration.ofMillis(100);

    private Await() {}

    /** A condition that can also say why it does not hold yet (for the timeout message). */
    @FunctionalInterface
    interface Probe {
        /** Null when the condition holds, else a short description of what is still missing. */
        String missing() throws IOException, InterruptedException;
    }

    /**
     * Polls {@code probe} until it reports nothing missing.
     *
     * @param what what is awaited, for the message
     * @param context appended to the timeout message (e.g. log tails), computed only on failure
     * @throws IllegalStateException after {@code timeout}, naming {@code what}, the last thing missing and the context
     */
    static void until(String what, Duration timeout, Probe probe, Supplier<String> context)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String missing;
        while (true) {
            missing = check(probe);
            if (missing == null) {
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                break;
            }
            Thread.sleep(POLL_INTERVAL.toMillis()); // the pause between two polls, not a guess at readiness
        }
        throw new IllegalStateException(what + " did not happen within " + timeout.toMillis() + " ms; last state: "
                + missing + "\n" + context.get());
    }

    /** An I/O failure is a condition that does not hold yet; anything else is a broken fixture and propagates. */
    private static String check(Probe probe) throws InterruptedException {
        try {
            return probe.missing();
        } catch (IOException | UncheckedIOException e) {
            return e.toString();
        }
    }
}
