package shepherd.consumer.internal;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.ConsumerEvent;
import shepherd.protocol.ErrorCode;

/**
 * The consumer's events on their way to the application's listener ({@code ConsumerConfig.Builder.listener}): in
 * order, on a thread of the listener's own, so listener code never runs on the network loop and a slow listener
 * cannot delay a Ping answer. Without a listener nothing is built or handed over.
 */
final class ListenerEvents {
    private static final Logger LOG = LoggerFactory.getLogger(ListenerEvents.class);

    private final ConsumerConfig config;
    private final ExecutorService events; // null without a listener

    ListenerEvents(ConsumerConfig config) {
        this.config = config;
        this.events = config.listener().isEmpty() ? null : Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "shepherd-consumer-events-" + config.consumerId());
            t.setDaemon(true);
            return t;
        });
    }

    /** Whether anybody listens: callers build events only then. */
    boolean enabled() {
        return events != null;
    }

    /** Hands one event, stamped now, to the listener's thread. */
    void emit(ConsumerEvent.Kind kind, String topic, String partition, int epoch, int generation, long offset,
              ErrorCode error, String detail) {
        if (events != null) {
            hand(List.of(new ConsumerEvent(System.nanoTime(), kind, topic, partition, epoch, generation, offset,
                    error, detail)));
        }
    }

    /**
     * Hands {@code batch} to the listener's thread as one task, in order. A Start or Stop hands its events of every
     * partition at once: one wake-up of the listener's thread instead of one per partition.
     */
    void hand(List<ConsumerEvent> batch) {
        if (events == null || batch.isEmpty()) {
            return;
        }
        Consumer<ConsumerEvent> listener = config.listener().orElseThrow();
        try {
            events.execute(() -> {
                for (ConsumerEvent event : batch) {
                    try {
                        listener.accept(event);
                    } catch (RuntimeException e) {
                        LOG.warn("{}: the consumer listener failed on {}: {}", config.consumerId(), event,
                                e.toString());
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            // closed: the history ends here
        }
    }

    /** Lets the listener hear what is queued, then stops its thread. */
    void close() {
        if (events == null) {
            return;
        }
        events.shutdown();
        try {
            if (!events.awaitTermination(config.shutdownTimeoutMs(), TimeUnit.MILLISECONDS)) {
                LOG.warn("{}: the consumer listener did not finish in time", config.consumerId());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
