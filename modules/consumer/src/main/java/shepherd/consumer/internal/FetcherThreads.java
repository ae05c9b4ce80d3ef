package shepherd.consumer.internal;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The threads a consumer's fetchers run on, reused across generations, and woken once per partition and
 * generation instead of twice.
 *
 * <p>A Stop closes its fetchers at once ({@link StreamQueue#close}: from then on none of them adds a record, which
 * is what seed Stop handler 1.2 requires), but it does not interrupt their threads. A thread whose fetcher was closed
 * <em>lingers</em>: it stays in its source's read until the next Start hands it a fetcher of the new generation
 * ({@link #run}: the interrupt that ends the old read is also the wake-up that begins the new one), or until it is
 * {@link #release released}. Interrupting every thread at the Stop and waking another at the Start cost two thread
 * wake-ups per partition and generation, and the first pair of them fell into the Stop round, on the same cores as
 * every other member's answer (docs/performance.md). A lingering read is harmless: its fetcher is closed, so whatever
 * it returns is refused, and the run then ends by itself.
 *
 * <p>Interrupts reach the run they are meant for only: a thread is interrupted under this pool's lock while it runs
 * a closed fetcher, and it clears its interrupt under the same lock, after that run ended and before it begins the
 * next one. Idle threads end after a minute unused.
 */
final class FetcherThreads {
    private static final long KEEP_ALIVE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final String namePrefix;
    private final Object lock = new Object();
    /** Threads waiting for a fetcher, the most recently used first. */
    private final ArrayDeque<Worker> idle = new ArrayDeque<>();
    /** Threads whose fetcher was closed and who were neither handed another nor released; checked when taken. */
    private final ArrayDeque<Lingering> lingering = new ArrayDeque<>();
    private final Set<Worker> alive = new HashSet<>();
    private boolean shutdown;
    private int created;

    /** Threads named {@code <namePrefix><n>}. */
    FetcherThreads(String namePrefix) {
        this.namePrefix = namePrefix;
    }

    private record Lingering(Worker worker, Fetcher fetcher) {
        /** Still running the closed fetcher it was registered with, and not yet handed another. */
        boolean current() {
            return worker.running == fetcher && worker.next == null;
        }
    }

    /**
     * Runs {@code fetcher} on a thread whose fetcher was closed, if one lingers; else on an idle thread; else on a
     * new one. False, and nothing runs, once {@link #shutdownNow} has begun.
     */
    boolean run(Fetcher fetcher) {
        Worker fresh;
        synchronized (lock) {
            if (shutdown) {
                return false;
            }
            Lingering l;
            while ((l = lingering.pollFirst()) != null) {
                if (l.current()) {
                    l.worker.next = fetcher;
                    l.worker.thread.interrupt(); // under the lock: it can only end the closed fetcher's run
                    return true;
                }
            }
            Worker w = idle.pollFirst();
            if (w != null) {
                w.next = fetcher;
                LockSupport.unpark(w.thread);
                return true;
            }
            fresh = new Worker(fetcher);
            fresh.thread = new Thread(fresh, namePrefix + ++created);
            fresh.thread.setDaemon(true);
            alive.add(fresh);
        }
        fresh.thread.start();
        return true;
    }

    /**
     * {@code fetcher} was closed: its thread may stay in its read until {@link #run} hands it another fetcher or
     * {@link #release} ends the read. A fetcher whose run has not begun yet ends as soon as it begins.
     */
    void closed(Fetcher fetcher) {
        synchronized (lock) {
            Worker w = fetcher.worker;
            if (w != null && w.running == fetcher && w.next == null) {
                lingering.addLast(new Lingering(w, fetcher));
            }
        }
    }

    /** Ends the reads of every lingering thread; they become idle. */
    void release() {
        synchronized (lock) {
            Lingering l;
            while ((l = lingering.pollFirst()) != null) {
                if (l.current()) {
                    l.worker.thread.interrupt();
                }
            }
        }
    }

    /** Interrupts every thread and lets each end; nothing runs after this. */
    void shutdownNow() {
        synchronized (lock) {
            shutdown = true;
            lingering.clear();
            for (Worker w : alive) {
                w.thread.interrupt();
            }
        }
    }

    /** Threads alive: running, lingering or idle. */
    int threads() {
        synchronized (lock) {
            return alive.size();
        }
    }

    /** Threads waiting for a fetcher. */
    int idleThreads() {
        synchronized (lock) {
            return idle.size();
        }
    }

    /** One thread of the pool. */
    final class Worker implements Runnable {
        Thread thread;
        /** The fetcher whose run this thread is in, or about to begin; null while idle. Under the lock. */
        Fetcher running;
        /** The fetcher handed to this thread, not yet begun. Under the lock. */
        Fetcher next;

        Worker(Fetcher first) {
            this.next = first;
        }

        @Override
        public void run() {
            try {
                Fetcher f = take();
                while (f != null) {
                    f.run();
                    f = take();
                }
            } finally {
                synchronized (lock) {
                    alive.remove(this);
                    idle.remove(this);
                    running = null;
                }
            }
        }

        /** The next fetcher to run, waiting up to the keep-alive for one; null when this thread is to end. */
        private Fetcher take() {
            long deadline = System.nanoTime() + KEEP_ALIVE_NANOS;
            synchronized (lock) {
                Thread.interrupted(); // meant for the run that just ended, or for the previous fetcher's read
                running = null;
                if (shutdown) {
                    return null;
                }
                if (next != null) {
                    return begin();
                }
                idle.addFirst(this);
            }
            while (true) {
                LockSupport.parkNanos(this, deadline - System.nanoTime());
                synchronized (lock) {
                    if (next != null && !shutdown) {
                        Thread.interrupted();
                        return begin();
                    }
                    if (shutdown || deadline - System.nanoTime() <= 0) {
                        idle.remove(this);
                        return null;
                    }
                }
            }
        }

        /** Under the lock. */
        private Fetcher begin() {
            running = next;
            next = null;
            running.worker = this;
            return running;
        }
    }
}
