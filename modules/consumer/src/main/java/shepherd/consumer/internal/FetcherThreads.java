package shepherd.consumer.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The threads a consumer's fetchers run on, reused across generations, and woken once per partition and
 * generation instead of twice.
 *
 * <p>A Stop closes its fetchers at once ({@link StreamQueue#close}: from then on none of them adds a record, which
 * is what seed Stop handler 1.2 requires), but it does not interrupt their threads. A thread whose fetcher was closed
 * <em>lingers</em>: it stays in its source's read until the next Start hands it a fetcher of the new generation
 * ({@link #run}: the interrupt that ends the old read is also the wake-up that begins the new one), or until it is
 * {@link #release released}. Interrupting every thread at the Stop and waking another at the Start would cost two
 * thread wake-ups per partition and generation, the first of them inside the Stop round, on the same cores as every
 * other member's answer. A lingering read is harmless: its fetcher is closed, so
 * whatever it returns is refused, and the run then ends by itself.
 *
 * <p>Interrupts reach the run they are meant for only: a thread is interrupted under its own lock while it runs a
 * closed fetcher, and it clears its interrupt under the same lock, after that run ended and before it begins the
 * next one. Each thread has a lock of its own: with one for the whole pool, the threads a Start had just woken
 * queued on it behind the Start's next hand-overs. Idle threads end after a minute unused.
 */
final class FetcherThreads {
    private static final long KEEP_ALIVE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final String namePrefix;
    private final AtomicInteger created = new AtomicInteger();
    /** Threads waiting for a fetcher, the most recently used first; an entry is checked when taken. */
    private final ConcurrentLinkedDeque<Worker> idle = new ConcurrentLinkedDeque<>();
    /** Threads whose fetcher was closed, neither handed another nor released yet; an entry is checked when taken. */
    private final ConcurrentLinkedQueue<Lingering> lingering = new ConcurrentLinkedQueue<>();
    private final Set<Worker> alive = ConcurrentHashMap.newKeySet();
    private volatile boolean shutdown;

    /** Threads named {@code <namePrefix><n>}. */
    FetcherThreads(String namePrefix) {
        this.namePrefix = namePrefix;
    }

    private record Lingering(Worker worker, Fetcher fetcher) {
        /** Still running the closed fetcher it was registered with, and not yet handed another. Under its lock. */
        boolean current() {
            return worker.running == fetcher && worker.next == null; // an ending thread runs nothing
        }
    }

    /**
     * Runs {@code fetcher} on a thread whose fetcher was closed, if one lingers; else on an idle thread; else on a
     * new one. False, and nothing runs, once {@link #shutdownNow} has begun.
     */
    boolean run(Fetcher fetcher) {
        if (shutdown) {
            return false;
        }
        Lingering l;
        while ((l = lingering.poll()) != null) {
            synchronized (l.worker) {
                if (l.current()) {
                    l.worker.next = fetcher;
                    l.worker.thread.interrupt(); // under its lock: it can only end the closed fetcher's run
                    return true;
                }
            }
        }
        Worker w;
        while ((w = idle.pollFirst()) != null) {
            synchronized (w) {
                if (w.running == null && w.next == null && !w.ended) {
                    w.next = fetcher;
                    LockSupport.unpark(w.thread);
                    return true;
                }
            }
        }
        w = new Worker(fetcher);
        w.thread = new Thread(w, namePrefix + created.incrementAndGet());
        w.thread.setDaemon(true);
        alive.add(w);
        w.thread.start();
        return true;
    }

    /**
     * {@code fetcher} was closed: its thread may stay in its read until {@link #run} hands it another fetcher or
     * {@link #release} ends the read. A fetcher whose run has not begun yet ends as soon as it begins.
     */
    void closed(Fetcher fetcher) {
        Worker w = fetcher.worker;
        if (w != null) {
            lingering.add(new Lingering(w, fetcher));
        }
    }

    /** Ends the reads of every lingering thread; they become idle. */
    void release() {
        Lingering l;
        while ((l = lingering.poll()) != null) {
            synchronized (l.worker) {
                if (l.current()) {
                    l.worker.thread.interrupt();
                }
            }
        }
    }

    /** Interrupts every thread and lets each end; nothing runs after this. */
    void shutdownNow() {
        shutdown = true;
        lingering.clear();
        for (Worker w : alive) {
            synchronized (w) {
                w.thread.interrupt();
            }
        }
    }

    /** Threads alive: running, lingering or idle. */
    int threads() {
        return alive.size();
    }

    /** Threads waiting for a fetcher, where {@link #run} finds them. */
    int idleThreads() {
        int n = 0;
        for (Worker w : idle) {
            synchronized (w) {
                if (w.running == null && w.next == null && !w.ended) {
                    n++;
                }
            }
        }
        return n;
    }

    /** One thread of the pool; its fields under its own lock. */
    final class Worker implements Runnable {
        Thread thread;
        /** The fetcher whose run this thread is in; null while idle. */
        Fetcher running;
        /** The fetcher handed to this thread, not yet begun. */
        Fetcher next;
        /** This thread takes no more fetchers: it is ending. */
        boolean ended;

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
                synchronized (this) {
                    ended = true;
                    running = null;
                }
                alive.remove(this);
                idle.remove(this);
            }
        }

        /** The next fetcher to run, waiting up to the keep-alive for one; null when this thread is to end. */
        private Fetcher take() {
            synchronized (this) {
                Thread.interrupted(); // meant for the run that just ended, or for the previous fetcher's read
                running = null;
                if (shutdown) {
                    ended = true;
                    return null;
                }
                if (next != null) {
                    return begin();
                }
            }
            idle.addFirst(this);
            long deadline = System.nanoTime() + KEEP_ALIVE_NANOS;
            while (true) {
                LockSupport.parkNanos(this, deadline - System.nanoTime());
                synchronized (this) {
                    if (shutdown || (next == null && deadline - System.nanoTime() <= 0)) {
                        ended = true;
                        return null;
                    }
                    if (next != null) {
                        Thread.interrupted();
                        return begin();
                    }
                }
            }
        }

        /** Under this worker's lock. */
        private Fetcher begin() {
            running = next;
            next = null;
            running.worker = this;
            return running;
        }
    }
}
