package shepherd.consumer.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.ConsumerEvent;
import shepherd.consumer.PartitionLogs;
import shepherd.consumer.session.SessionState;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.PartitionAssignment;

/**
 * The fetchers of the generation being fetched and the streams they feed: what the session core's StartFetchers
 * and StopFetchers effects do (docs/consumer.md, "Threads" and "Why Stop is exact"). Started, stopped and ended on
 * the network loop; {@link #halt} alone runs on an application thread, once the loop is gone.
 */
final class Fetchers {
    private static final Logger LOG = LoggerFactory.getLogger(Fetchers.class);
    /**
     * How long the threads of fetchers a Stop closed may stay in their reads waiting for the next Start to hand them
     * its fetchers (FetcherThreads). A Start follows its Stop within milliseconds unless a member failed; past this,
     * the reads end and the threads go idle.
     */
    static final long LINGER_MS = 1_000;

    private final ConsumerConfig config;
    private final PartitionLogs logs;
    private final TakenOffsets taken;
    private final LeaseGate leaseGate;
    private final ListenerEvents events;
    private final ScheduledExecutorService loop;
    /** The fetchers' threads, reused across generations; each ends after a minute unused. */
    private final FetcherThreads threads;
    // Copy-on-write: halt() stops them from an application thread while the loop may be gone mid-task.
    private final List<Fetcher> running = new CopyOnWriteArrayList<>();
    private volatile StreamRouter router;

    // Loop-thread state.
    private int fetchingEpoch = SessionState.NONE;
    /** Ends the reads of the threads of fetchers a Stop closed, if no Start has taken them by then. */
    private ScheduledFuture<?> lingerEnd;

    Fetchers(ConsumerConfig config, PartitionLogs logs, TakenOffsets taken, LeaseGate leaseGate,
             ListenerEvents events, ScheduledExecutorService loop) {
        this.config = config;
        this.logs = logs;
        this.taken = taken;
        this.leaseGate = leaseGate;
        this.events = events;
        this.loop = loop;
        this.threads = new FetcherThreads("shepherd-fetcher-" + config.consumerId() + "-");
    }

    /** Records go to the streams {@code router} names; set once, before the first Start. */
    void route(StreamRouter router) {
        this.router = router;
    }

    /** StartFetchers: one fetcher per assigned partition, into the queue of the stream the coordinator named. */
    void start(int generation, int epoch, List<PartitionAssignment> assigned) {
        if (!running.isEmpty()) {
            throw new IllegalStateException("StartFetchers(" + generation + ") while " + running + " still run");
        }
        taken.reset(assigned);
        fetchingEpoch = epoch;
        List<String> names = LOG.isInfoEnabled() ? new ArrayList<>() : null; // not built unless logged
        List<ConsumerEvent> started = events.enabled() ? new ArrayList<>(assigned.size()) : null;
        for (PartitionAssignment a : assigned) {
            Optional<StreamQueue> queue = router.queueFor(a.topic(), a.stream());
            if (queue.isEmpty()) {
                LOG.error("{}: generation {} assigns {}/{} to stream {}, which this consumer does not have; "
                        + "the partition is not fetched", config.consumerId(), generation, a.topic(), a.partition(),
                        a.stream());
                continue;
            }
            Fetcher f = new Fetcher(config.consumerId(), a.topic(), a.partition(), generation, a.offset(),
                    config.autoOffsetReset(), logs, queue.get(), config.fetchRecordsMax(), config.fetchWaitMs());
            running.add(f);
            if (started != null) {
                // Stamped before its fetcher starts, as every FETCH_STARTED is; handed over with the others once
                // all are started.
                started.add(new ConsumerEvent(System.nanoTime(), ConsumerEvent.Kind.FETCH_STARTED, a.topic(),
                        a.partition(), fetchingEpoch, generation, a.offset(), ErrorCode.NONE, null));
            }
            f.start(threads);
            if (names != null) {
                names.add(a.topic() + "/" + a.partition() + "@" + a.offset());
            }
        }
        if (started != null) {
            events.hand(started);
        }
        if (names != null) {
            LOG.info("{} of group {}: fetching generation {}: {}", config.consumerId(), config.groupId(), generation,
                    names);
        }
    }

    /**
     * Seed Stop handler 1.2: close every fetcher, then clear every queue, before anything is answered. Closed, a
     * fetcher adds nothing more; its thread lingers in its read for the next Start, at most {@link #LINGER_MS}.
     */
    void stop() {
        List<Fetcher> stopped = List.copyOf(running);
        for (Fetcher f : stopped) {
            f.close();
            threads.closed(f);
        }
        running.clear();
        if (!stopped.isEmpty()) {
            if (lingerEnd != null) {
                lingerEnd.cancel(false);
            }
            lingerEnd = loop.schedule(threads::release, LINGER_MS, TimeUnit.MILLISECONDS);
        }
        int dropped = 0;
        for (StreamQueue q : router == null ? List.<StreamQueue>of() : router.all()) {
            dropped += q.clear();
        }
        emitStopped(stopped);
        if (dropped > 0) {
            LOG.debug("{}: dropped {} queued records of stopped partitions", config.consumerId(), dropped);
        }
    }

    /** The session is over: stop, end the lingering reads at once, and end the streams (their takers see it). */
    void stopForGood() {
        stop();
        threads.release();
        if (router != null) {
            router.all().forEach(StreamQueue::end);
        }
    }

    /**
     * As in a killed process, from an application thread once the loop runs nothing of ours: every fetcher closes,
     * every thread is interrupted, the streams are emptied and end.
     */
    void halt() {
        List<Fetcher> stopped = List.copyOf(running); // racy reads of loop state are fine: the loop is gone
        stopped.forEach(Fetcher::close);
        threads.shutdownNow();
        if (router != null) {
            router.all().forEach(q -> {
                q.clear();
                q.end();
            });
        }
        emitStopped(stopped);
    }

    /** Interrupts every fetcher thread; the consumer is closing. */
    void shutdownThreads() {
        threads.shutdownNow();
    }

    private void emitStopped(List<Fetcher> stopped) {
        if (!events.enabled() || stopped.isEmpty()) {
            return;
        }
        // Nothing was delivered after the lease ran out (LeaseGate), even if the loop only now stops the fetchers:
        // the fetching ended then. The session clock is System.nanoTime() in milliseconds.
        long gateClosedNanos = leaseGate.deadlineMs() >= Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE
                : leaseGate.deadlineMs() * 1_000_000L;
        long at = Math.min(System.nanoTime(), gateClosedNanos);
        List<ConsumerEvent> batch = new ArrayList<>(stopped.size());
        for (Fetcher f : stopped) {
            batch.add(new ConsumerEvent(at, ConsumerEvent.Kind.FETCH_STOPPED, f.topic(), f.partition(),
                    fetchingEpoch, f.generation(), taken.next(f.topic(), f.partition()), ErrorCode.NONE, null));
        }
        events.hand(batch);
    }
}
