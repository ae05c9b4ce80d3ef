package shepherd.consumer.internal;

import java.util.function.LongSupplier;

/**
 * The consumer's lease as the application threads see it. The network loop expires the lease on its next event
 * (DESIGN §5 consumer lease), but a process that was paused (SIGSTOP, a long GC) resumes with every thread at
 * once: without this gate an application thread could take a queued record after the deadline and before the loop
 * stopped the fetchers, while the partition's next owner already consumes it (ExclusiveOwnership):
 * <ol>
 *   <li>the consumer is paused past its lease; the coordinator moves the partition and starts the next owner;</li>
 *   <li>the consumer resumes; its application thread takes a record from the queue at once;</li>
 *   <li>only then does the loop run the expiry and clear the queue.</li>
 * </ol>
 * So a take checks the deadline too, on the same monotonic clock as the session core.
 */
final class LeaseGate {
    private final LongSupplier clockMs;
    private volatile long deadlineMs = Long.MAX_VALUE;

    LeaseGate(LongSupplier clockMs) {
        this.clockMs = clockMs;
    }

    /** The loop publishes the deadline after every event: the lease's, or none (no fetching without a lease). */
    void set(long deadlineMs) {
        this.deadlineMs = deadlineMs;
    }

    boolean open() {
        return clockMs.getAsLong() < deadlineMs;
    }

    /** The deadline in force, on the session clock ({@link Long#MAX_VALUE}: none). */
    long deadlineMs() {
        return deadlineMs;
    }
}
