package shepherd.zookeeper;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the adapter runs: every task one at a time, in submission order, never inside the call that submits it (a
 * read asked for during a task is batched with the task's other reads, {@link ReadJoin}). A broker gives the adapter
 * a thread of its own ({@link #ownThread}); the simulation its deterministic scheduler, so that a seed replays the
 * adapter's every step.
 */
public interface ZkLoop {

    /** Runs {@code task} after every task already submitted; dropped once the loop is closed. */
    void execute(Runnable task);

    /** Runs {@code task} after {@code delayMs} of the adapter's clock; dropped once the loop is closed. */
    void schedule(Runnable task, long delayMs);

    /**
     * Runs {@code last} after every task already submitted, then accepts no more. A loop with a thread of its own
     * waits up to {@code waitMs} for {@code last} to have run, so that a closed adapter has closed its session.
     */
    void close(Runnable last, long waitMs);

    /** A daemon thread named {@code name}, the adapter's alone. */
    static ZkLoop ownThread(String name) {
        return new ThreadLoop(name);
    }

    /** {@link ZkLoop#ownThread}: a single-thread scheduled executor. */
    final class ThreadLoop implements ZkLoop {
        private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperAdapter.class);
        private final ScheduledExecutorService executor;

        private ThreadLoop(String name) {
            executor = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });
        }

        @Override
        public void execute(Runnable task) {
            try {
                executor.execute(task);
            } catch (RejectedExecutionException e) {
                LOG.debug("adapter closed; dropped a task");
            }
        }

        @Override
        public void schedule(Runnable task, long delayMs) {
            try {
                executor.schedule(task, delayMs, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                LOG.debug("adapter closed; dropped a retry");
            }
        }

        @Override
        public void close(Runnable last, long waitMs) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            execute(() -> {
                try {
                    last.run();
                } finally {
                    done.complete(null);
                }
            });
            try {
                done.get(waitMs, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                LOG.warn("closing the ZooKeeper session did not finish: {}", e.toString());
            }
            executor.shutdown();
        }
    }
}
