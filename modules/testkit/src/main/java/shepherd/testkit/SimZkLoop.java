package shepherd.testkit;

import java.util.Objects;
import shepherd.zookeeper.ZkLoop;

/**
 * The ZooKeeper adapter's loop in the simulation: a task runs as the broker's {@link SimProcess} (held while it is
 * paused, never after it crashed), on the world's {@link Scheduler}, after everything already due — so a seed fixes
 * the order of the adapter's every step as it fixes everything else. A delay is measured on the process's own,
 * drifting clock, as the adapter's clock is.
 */
public final class SimZkLoop implements ZkLoop {
    private final Scheduler scheduler;
    private final SimProcess process;
    private boolean closed;

    public SimZkLoop(Scheduler scheduler, SimProcess process) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.process = Objects.requireNonNull(process, "process");
    }

    @Override
    public void execute(Runnable task) {
        if (!closed) {
            scheduler.after(0, () -> process.run(task));
        }
    }

    @Override
    public void schedule(Runnable task, long delayMs) {
        if (!closed) {
            process.after(delayMs, task);
        }
    }

    /** Nothing waits in a simulation: {@code last} runs in its turn, like any task. */
    @Override
    public void close(Runnable last, long waitMs) {
        execute(last);
        closed = true;
    }
}
