package shepherd.transport;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waiting on conditions with a deadline; no test sleeps for a fixed time hoping something happened. */
public final class Await {
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private Await() {}

    public static <T> T get(Future<T> future) {
        try {
            return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException e) {
            throw new AssertionError("Future failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("Future not done within " + TIMEOUT);
        }
    }

    /** Waits for {@code future} to fail and returns its cause, checking its type. */
    public static <E extends Throwable> E failure(CompletableFuture<?> future, Class<E> type) {
        try {
            Object value = future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("Expected " + type.getSimpleName() + " but completed with " + value);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException e) {
            return assertInstanceOf(type, e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("Future not done within " + TIMEOUT + "; expected " + type.getSimpleName());
        }
    }

    public static <T> T take(BlockingQueue<T> queue) {
        try {
            T value = queue.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(value, "nothing arrived within " + TIMEOUT);
            return value;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Polls {@code condition} (every millisecond or so) until it holds, failing after {@code timeout}. */
    public static void until(Duration timeout, BooleanSupplier condition, Supplier<String> what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("Condition not met within " + timeout + ": " + what.get());
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    public static void until(BooleanSupplier condition, Supplier<String> what) {
        until(TIMEOUT, condition, what);
    }
}
