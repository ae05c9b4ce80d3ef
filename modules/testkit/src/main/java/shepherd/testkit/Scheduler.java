package shepherd.testkit;

import java.util.PriorityQueue;

/**
 * The single source of time and order of a simulated world: a queue of actions by (due time, insertion order).
 * Running the next action first moves the {@link ManualClock} to its due time. Two actions due at the same
 * millisecond run in the order they were scheduled, so a run is a function of its seed alone.
 */
public final class Scheduler {
    /** A handle to cancel a scheduled action; cancelling twice or after it ran does nothing. */
    public static final class Task {
        private final long dueMs;
        private final long seq;
        private final Runnable action;
        private boolean cancelled;

        private Task(long dueMs, long seq, Runnable action) {
            this.dueMs = dueMs;
            this.seq = seq;
            this.action = action;
        }

        public void cancel() {
            cancelled = true;
        }

        public boolean cancelled() {
            return cancelled;
        }

        public long dueMs() {
            return dueMs;
        }
    }

    private final ManualClock clock;
    private final PriorityQueue<Task> queue = new PriorityQueue<>((a, b) -> a.dueMs != b.dueMs
            ? Long.compare(a.dueMs, b.dueMs) : Long.compare(a.seq, b.seq));
    private long nextSeq;
    private long executed;

    public Scheduler(ManualClock clock) {
        this.clock = clock;
    }

    public ManualClock clock() {
        return clock;
    }

    public long nowMs() {
        return clock.nowMs();
    }

    /** Runs {@code action} at {@code dueMs}; a due time in the past means "now, after what is already due". */
    public Task at(long dueMs, Runnable action) {
        Task task = new Task(Math.max(dueMs, clock.nowMs()), nextSeq++, action);
        queue.add(task);
        return task;
    }

    public Task after(long delayMs, Runnable action) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("negative delay " + delayMs + " ms");
        }
        return at(clock.nowMs() + delayMs, action);
    }

    /** Runs the next action that is not cancelled; false when nothing is left. */
    public boolean runNext() {
        while (!queue.isEmpty()) {
            Task task = queue.poll();
            if (task.cancelled) {
                continue;
            }
            clock.advanceTo(task.dueMs);
            executed++;
            task.action.run();
            return true;
        }
        return false;
    }

    /** Runs every action due at or before {@code untilMs}, then leaves the clock at {@code untilMs}. */
    public void runUntil(long untilMs) {
        while (true) {
            Task head = peekLive();
            if (head == null || head.dueMs > untilMs) {
                break;
            }
            runNext();
        }
        if (untilMs > clock.nowMs()) {
            clock.advanceTo(untilMs);
        }
    }

    public boolean idle() {
        return peekLive() == null;
    }

    public long executed() {
        return executed;
    }

    private Task peekLive() {
        while (!queue.isEmpty() && queue.peek().cancelled) {
            queue.poll();
        }
        return queue.peek();
    }
}
