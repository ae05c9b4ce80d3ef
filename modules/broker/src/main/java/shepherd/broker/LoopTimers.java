package shepherd.broker;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import shepherd.coordination.CoordinatorTimer;

/**
 * The event loop's timers: each armed on a timer thread, whose only job is to put the firing on the loop's queue,
 * and judged on the loop thread when the loop takes it. Not thread-safe: every method but the firing itself runs on
 * the loop thread. The warm-up runs the same code on an instance of its own ({@link Warmup}).
 */
final class LoopTimers {
    /** A timer firing; {@code token} identifies the arming it belongs to, so a replaced or cancelled one is dropped. */
    record Due(CoordinatorTimer timer, Object token) {}

    private record Armed(Object token, ScheduledFuture<?> future) {}

    private final ScheduledExecutorService executor;
    private final Consumer<Due> enqueue;
    private final Map<CoordinatorTimer, Armed> scheduled = new HashMap<>();

    /** @param enqueue puts a firing on the loop's queue (called on the timer thread) */
    LoopTimers(ScheduledExecutorService executor, Consumer<Due> enqueue) {
        this.executor = executor;
        this.enqueue = enqueue;
    }

    /**
     * Arms {@code timer} to fire after {@code delayMs}, replacing its arming if it had one, under a fresh token.
     * Matching the token when it fires (not the future's {@code isDone()}, which the timer thread sets only after
     * its enqueue returns, so the loop could see it still running) drops exactly the firings of timers cancelled or
     * re-armed since.
     */
    void arm(CoordinatorTimer timer, long delayMs) {
        cancel(timer);
        Object token = new Object();
        ScheduledFuture<?> f = executor.schedule(() -> enqueue.accept(new Due(timer, token)), Math.max(0, delayMs),
                TimeUnit.MILLISECONDS);
        scheduled.put(timer, new Armed(token, f));
    }

    /** Whether {@code due} is the current arming of its timer (then forgotten: it fired), not a stale firing. */
    boolean fired(Due due) {
        Armed armed = scheduled.get(due.timer());
        if (armed == null || armed.token() != due.token()) {
            return false;
        }
        scheduled.remove(due.timer());
        return true;
    }

    void cancel(CoordinatorTimer timer) {
        Armed a = scheduled.remove(timer);
        if (a != null) {
            a.future().cancel(false);
        }
    }

    void cancelAll() {
        scheduled.values().forEach(a -> a.future().cancel(false));
        scheduled.clear();
    }
}
