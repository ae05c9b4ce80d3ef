package shepherd.cli;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import shepherd.cli.DeliveryChecks.Delivery;
import shepherd.cli.local.LocalCluster;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.ConsumerRecord;
import shepherd.consumer.MessageStream;
import shepherd.consumer.ShepherdConsumer;
import shepherd.protocol.OffsetReset;

/**
 * One consumer group over one topic of a {@link LocalCluster}, with the file source: a producer appending
 * {@code "<partition>:<offset>"} lines, consumers each with one application thread that records every delivery,
 * and the checks of the consumer integration tests (everything delivered, one owner per partition and generation,
 * duplicates counted).
 */
final class GroupRun implements AutoCloseable {
    static final String TOPIC = "events";
    static final String GROUP = "billing";


    final LocalCluster cluster;
    final Path root;
    final List<String> partitions;
    private final Map<String, Long> produced = new HashMap<>();
    private final List<Delivery> deliveries = new ArrayList<>();
    final Map<String, ShepherdConsumer> consumers = new LinkedHashMap<>();
    private final List<Thread> appThreads = new ArrayList<>();

    GroupRun(Path root, int partitionsPerBroker) {
        this.root = root;
        this.cluster = LocalCluster.builder().brokers(3).start();
        this.partitions = cluster.createTopic(TOPIC, partitionsPerBroker);
        partitions.forEach(p -> produced.put(p, 0L));
        cluster.awaitCoordinator(Duration.ofSeconds(20));
    }

    /** Appends {@code perPartition} records to every partition's log. */
    void produce(int perPartition) {
        try {
            Files.createDirectories(root.resolve(TOPIC));
            for (String p : partitions) {
                StringBuilder lines = new StringBuilder();
                long from;
                synchronized (produced) {
                    from = produced.get(p);
                    produced.put(p, from + perPartition);
                }
                for (long o = from; o < from + perPartition; o++) {
                    lines.append(p).append(':').append(o).append('\n');
                }
                Files.writeString(root.resolve(TOPIC).resolve(p + ".log"), lines, StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    ConsumerConfig.Builder config(String id) {
        return ConsumerConfig.builder().bootstrap(cluster.bootstrap()).groupId(GROUP).consumerId(id)
                .autoOffsetReset(OffsetReset.SMALLEST).pingIntervalMs(200).maxPingRetries(4)
                .source("file", Map.of("root", root.toString())).queuedRecordsMax(20).fetchWaitMs(20)
                .shutdownTimeoutMs(5_000);
    }

    /** Starts a consumer whose application thread records each record; commits every {@code commitEvery} if > 0. */
    ShepherdConsumer start(ConsumerConfig config, int commitEvery) {
        ShepherdConsumer c = ShepherdConsumer.create(config);
        consumers.put(config.consumerId(), c);
        MessageStream stream = c.createMessageStreams(Map.of(TOPIC, 1)).get(TOPIC).get(0);
        Thread app = new Thread(() -> consume(config.consumerId(), c, stream, commitEvery), "app-" + config.consumerId());
        app.setDaemon(true);
        app.start();
        appThreads.add(app);
        return c;
    }

    /** Starts these consumers, waits until they share the topic, and returns once records are flowing. */
    void startMidFlow(List<String> ids) {
        ids.forEach(this::start);
        awaitBalanced(ids);
        produce(40);
        awaitDeliveries(100);
    }

    ShepherdConsumer start(String id) {
        return start(config(id).build(), 0);
    }

    private void consume(String id, ShepherdConsumer c, MessageStream stream, int commitEvery) {
        int sinceCommit = 0;
        try {
            while (true) {
                ConsumerRecord r = stream.poll(Duration.ofMillis(100));
                if (r == null) {
                    if (stream.ended()) {
                        return;
                    }
                    continue;
                }
                String expected = r.partition() + ":" + r.offset();
                if (!r.valueAsString().equals(expected)) {
                    throw new IllegalStateException("record " + r + " holds '" + r.valueAsString() + "'");
                }
                synchronized (deliveries) {
                    deliveries.add(new Delivery(id, r.partition(), r.offset(), r.generation()));
                }
                if (commitEvery > 0 && ++sinceCommit >= commitEvery) {
                    try {
                        c.commitOffsets();
                        sinceCommit = 0;
                    } catch (RuntimeException e) {
                        // a rebalance is under way: the next commit carries these offsets too
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    List<Delivery> deliveries() {
        synchronized (deliveries) {
            return List.copyOf(deliveries);
        }
    }

    /** Partitions whose produced records were not all delivered yet, with what is missing. */
    Map<String, String> missing() {
        synchronized (produced) {
            return DeliveryChecks.missing(deliveries(), produced);
        }
    }

    void awaitAllDelivered() {
        await(60_000, () -> "every record delivered; missing " + missing() + "; consumers "
                + consumers.values().stream().map(ShepherdConsumer::status).toList(), () -> missing().isEmpty());
    }

    /** Deliveries of a (partition, offset) beyond the first. */
    int duplicates() {
        return DeliveryChecks.duplicates(deliveries()).size();
    }

    List<Delivery> duplicateDeliveries() {
        return DeliveryChecks.duplicates(deliveries());
    }

    /** (partition, generation) pairs delivered by more than one consumer: must be none. */
    Map<String, Set<String>> sharedGenerations() {
        return DeliveryChecks.sharedGenerations(deliveries());
    }

    /** Partitions each consumer delivered at least once, after {@code fromIndex} deliveries. */
    Map<String, Set<String>> partitionsByConsumer(int fromIndex) {
        Map<String, Set<String>> out = new TreeMap<>();
        List<Delivery> all = deliveries();
        for (Delivery d : all.subList(fromIndex, all.size())) {
            out.computeIfAbsent(d.consumer(), k -> new HashSet<>()).add(d.partition());
        }
        return out;
    }

    /** Waits until {@code n} more deliveries happened. */
    void awaitDeliveries(int n) {
        int target = deliveries().size() + n;
        await(30_000, () -> "deliveries reach " + target + ", now " + deliveries().size(),
                () -> deliveries().size() >= target);
    }

    /** Waits until every named consumer is fetching one generation and, together, all partitions. */
    void awaitBalanced(List<String> ids) {
        await(30_000, () -> "a generation spanning " + ids + ": " + ids.stream().map(i -> consumers.get(i).status())
                .toList(), () -> {
                    Set<String> assigned = new HashSet<>();
                    int generation = consumers.get(ids.get(0)).status().generation();
                    for (String id : ids) {
                        var s = consumers.get(id).status();
                        if (!s.state().equals("FETCHING") || s.generation() != generation || s.assigned().isEmpty()) {
                            return false;
                        }
                        assigned.addAll(s.assigned());
                    }
                    return assigned.size() == partitions.size();
                });
    }

    static void await(long timeoutMs, Supplier<String> what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + timeoutMs + " ms: " + what.get());
            }
            try {
                Thread.sleep(20); // polling interval of a condition with a deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting for " + what.get());
            }
        }
    }

    @Override
    public void close() {
        consumers.values().forEach(ShepherdConsumer::shutdown);
        appThreads.forEach(Thread::interrupt);
        cluster.close();
    }
}
