package shepherd.consumer;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.consumer.internal.ConsumerRuntime;
import shepherd.consumer.internal.StreamQueue;
import shepherd.consumer.internal.StreamRouter;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.IdRule;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.TopicStreams;
import shepherd.protocol.WildcardSubscription;

/**
 * A member of a consumer group (Kafka 0.8's {@code ConsumerConnector}). Create it, ask once for streams, iterate
 * them on your own threads, shut it down:
 *
 * <pre>{@code
 * try (ShepherdConsumer consumer = ShepherdConsumer.create(config)) {
 *     MessageStream stream = consumer.createMessageStreams(Map.of("orders", 1)).get("orders").get(0);
 *     for (ConsumerRecord record : stream) {
 *         handle(record.valueAsString());
 *     }
 * }
 * }</pre>
 *
 * <p>Asking for streams starts the session (seed consumerStartup): Consult a random broker, then the others, with
 * backoff until one answers, for as long as the consumer lives; connect to the coordinator; Register. From then on
 * the coordinator drives it: Start opens one fetcher per assigned partition, Stop closes them all and clears the
 * queues before it is answered, Ping renews the lease (DESIGN §6). A consumer that loses its coordinator or its lease
 * stops fetching and registers again by itself. {@link #shutdown()} leaves the group at once.
 *
 * <p>Thread-safe. None of its threads ever runs application code.
 */
public final class ShepherdConsumer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShepherdConsumer.class);

    private final ConsumerConfig config;
    private final PartitionLogs logs;
    private final ConsumerRuntime runtime;
    private boolean subscribed;
    private boolean shutDown;

    private ShepherdConsumer(ConsumerConfig config, PartitionLogs logs) {
        this.config = config;
        this.logs = logs;
        this.runtime = new ConsumerRuntime(config, logs, () -> System.nanoTime() / 1_000_000L);
    }

    /**
     * A consumer with this configuration; its partition source is opened now, so a bad source setting fails here
     * ({@link InvalidSourceSettingsException}), as does a source name no module provides
     * ({@link InvalidConsumerConfigException}). Nothing is sent before streams are created.
     */
    public static ShepherdConsumer create(ConsumerConfig config) {
        Objects.requireNonNull(config, "config");
        PartitionSource source = config.sourceInstance().orElseGet(() -> findSource(config.sourceName()));
        return new ShepherdConsumer(config, source.open(config.sourceSettings()));
    }

    private static PartitionSource findSource(String name) {
        List<String> names = new ArrayList<>();
        for (PartitionSource s : ServiceLoader.load(PartitionSource.class)) {
            if (s.name().equals(name)) {
                return s;
            }
            names.add(s.name());
        }
        throw new InvalidConsumerConfigException("source", "no partition source named '" + name
                + "' on the module path; available: " + names);
    }

    /**
     * Subscribes to these topics with this many streams each (Kafka's {@code topicCountMap}) and starts the
     * session; returns the streams per topic. Once per consumer.
     */
    public synchronized Map<String, List<MessageStream>> createMessageStreams(Map<String, Integer> topicCountMap) {
        Objects.requireNonNull(topicCountMap, "topicCountMap");
        checkSubscribable();
        if (topicCountMap.isEmpty()) {
            throw new InvalidConsumerConfigException("topicCountMap", "names no topic");
        }
        Map<String, List<StreamQueue>> queues = new LinkedHashMap<>();
        Map<String, List<MessageStream>> streams = new LinkedHashMap<>();
        List<TopicStreams> topics = new ArrayList<>();
        for (Map.Entry<String, Integer> e : topicCountMap.entrySet()) {
            String topic = Objects.requireNonNull(e.getKey(), "topic");
            int count = checkStreams(topic, e.getValue());
            checkTopic(topic);
            List<StreamQueue> q = new ArrayList<>();
            List<MessageStream> s = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                StreamQueue queue = StreamRouter.newQueue(config.queuedRecordsMax(), runtime);
                q.add(queue);
                s.add(new MessageStream(topic + "#" + i, queue, config.consumerTimeoutMs()));
            }
            queues.put(topic, q);
            streams.put(topic, List.copyOf(s));
            topics.add(new TopicStreams(topic, count));
        }
        subscribed = true;
        runtime.start(new StaticSubscription(topics), StreamRouter.byTopic(queues));
        return Map.copyOf(streams);
    }

    /**
     * Subscribes to every topic the filter selects, now and as topics appear, with {@code streams} streams shared
     * by all of them, and starts the session. Once per consumer.
     */
    public synchronized List<MessageStream> createMessageStreamsByFilter(TopicFilter filter, int streams) {
        Objects.requireNonNull(filter, "filter");
        checkSubscribable();
        int count = checkStreams("filter " + filter.pattern(), streams);
        List<StreamQueue> queues = new ArrayList<>();
        List<MessageStream> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            StreamQueue queue = StreamRouter.newQueue(config.queuedRecordsMax(), runtime);
            queues.add(queue);
            out.add(new MessageStream(filter.kind().name().toLowerCase() + "(" + filter.pattern() + ")#" + i, queue,
                    config.consumerTimeoutMs()));
        }
        subscribed = true;
        runtime.start(new WildcardSubscription(filter.kind(), filter.pattern(), count), StreamRouter.wildcard(queues));
        return List.copyOf(out);
    }

    /** {@link #createMessageStreamsByFilter(TopicFilter, int)} with a whitelist regular expression. */
    public List<MessageStream> createMessageStreamsByFilter(String whitelistRegex, int streams) {
        return createMessageStreamsByFilter(TopicFilter.whitelist(whitelistRegex), streams);
    }

    /**
     * Commits the offsets taken so far and waits until the coordinator wrote them (at most {@code
     * requestTimeoutMs}). With auto-commit off, this is how progress is saved.
     *
     * @throws CommitFailedException the coordinator refused (a rebalance is under way, a partition moved) or did not
     *                               answer; nothing is lost, the offsets stay taken for the next commit
     */
    public void commitOffsets() {
        try {
            commitOffsetsAsync().get(config.requestTimeoutMs() + 1_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommitFailedException(ErrorCode.UNKNOWN, "interrupted while committing", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CommitFailedException c) {
                throw c;
            }
            throw new CommitFailedException(ErrorCode.UNKNOWN, "commit failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new CommitFailedException(ErrorCode.UNKNOWN, "no answer within " + config.requestTimeoutMs()
                    + " ms", e);
        }
    }

    /** {@link #commitOffsets()} without waiting; the future fails with {@link CommitFailedException}. */
    public CompletableFuture<Void> commitOffsetsAsync() {
        return runtime.commit();
    }

    /**
     * Waits until this consumer has registered with a coordinator once (the bounded wait of seed step 1.2).
     *
     * @throws AllKnownBrokersNotAvailableException no broker answered a Consult in that time
     * @throws ConsumerTimeoutException             brokers answered, but registration did not complete in time
     * @throws IllegalStateException                the session is over (shut down, or refused for good)
     */
    public void awaitRegistered(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        runtime.awaitRegistered(timeout.toMillis());
    }

    public ConsumerStatus status() {
        return runtime.status();
    }

    public ConsumerConfig config() {
        return config;
    }

    /**
     * Leaves the group: stops the fetchers, sends Leave with the final offsets (when auto-committing) so the
     * coordinator rebalances at once, waits for its answer, then closes everything. Waits at most
     * {@code shutdownTimeoutMs} for the goodbye. Streams end. Idempotent. A Leave the coordinator refused or did not
     * answer is logged as a warning and named in {@link #status()}'s termination: the final offsets may not be
     * committed, and the next owner of those partitions starts from the last committed ones.
     */
    public synchronized void shutdown() {
        if (shutDown) {
            return;
        }
        shutDown = true;
        if (subscribed) {
            try {
                runtime.requestShutdown().get(config.shutdownTimeoutMs(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("{}: did not leave group {} within {} ms; closing anyway", config.consumerId(),
                        config.groupId(), config.shutdownTimeoutMs());
            }
        }
        runtime.close();
        try {
            logs.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("{}: closing the partition source failed: {}", config.consumerId(), e.toString());
        }
    }

    /**
     * Drops out without a goodbye, as a killed process does: the sockets close, no Leave is sent, taken offsets
     * not yet committed stay uncommitted. For failure drills and tests; the coordinator notices the closed
     * connection or the missing ping answers and moves the partitions (DESIGN §5). Applications call
     * {@link #shutdown()}.
     */
    public synchronized void halt() {
        if (shutDown) {
            return;
        }
        shutDown = true;
        runtime.halt();
        try {
            logs.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("{}: closing the partition source failed: {}", config.consumerId(), e.toString());
        }
    }

    /** {@link #shutdown()}. */
    @Override
    public void close() {
        shutdown();
    }

    private void checkSubscribable() {
        if (shutDown) {
            throw new IllegalStateException("the consumer is shut down");
        }
        if (subscribed) {
            throw new IllegalStateException("streams were already created; a consumer subscribes once");
        }
    }

    private static int checkStreams(String what, Integer streams) {
        if (streams == null || streams < 1 || streams > 1_024) {
            throw new InvalidConsumerConfigException("streams", streams + " streams for " + what
                    + " is outside [1, 1024]");
        }
        return streams;
    }

    private static void checkTopic(String topic) {
        IdRule.violation(topic).ifPresent(reason -> {
            throw new InvalidConsumerConfigException("topicCountMap", "topic " + reason);
        });
    }
}
