package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import shepherd.cli.local.LocalCluster;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.ConsumerRecord;
import shepherd.consumer.MessageStream;
import shepherd.consumer.ShepherdConsumer;
import shepherd.consumer.TopicFilter;

/**
 * {@code createMessageStreamsByFilter} against a real coordinator: a whitelist follows every matching topic,
 * including one created while the group runs, and never a topic outside it; streams share the partitions.
 */
class WildcardConsumerIT {

    @Test
    void aWhitelistFollowsMatchingTopicsAsTheyAppear(@TempDir Path root) throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().brokers(2).start()) {
            cluster.createTopic("events-a", 1);
            cluster.createTopic("other", 1);
            write(root, "events-a", List.of("1-0", "2-0"), 5);
            write(root, "other", List.of("1-0", "2-0"), 5);
            cluster.awaitCoordinator(Duration.ofSeconds(20));

            Set<String> seen = ConcurrentHashMap.newKeySet();
            ConsumerConfig config = ConsumerConfig.builder().bootstrap(cluster.bootstrapString()).groupId("audit")
                    .consumerId("w1").autoOffsetReset("smallest").pingIntervalMs(200).maxPingRetries(4)
                    .source("file", Map.of("root", root.toString())).build();
            try (ShepherdConsumer consumer = ShepherdConsumer.create(config)) {
                List<MessageStream> streams = consumer.createMessageStreamsByFilter(TopicFilter.whitelist("events-.*"), 2);
                assertEquals(2, streams.size());
                for (MessageStream stream : streams) {
                    Thread t = new Thread(() -> drain(stream, seen), "app-" + stream);
                    t.setDaemon(true);
                    t.start();
                }
                GroupRun.await(30_000, () -> "events-a delivered: " + seen, () -> seen.size() == 10);

                cluster.createTopic("events-b", 1);
                write(root, "events-b", List.of("1-0", "2-0"), 3);
                GroupRun.await(30_000, () -> "events-b delivered too: " + seen, () -> seen.size() == 16);
                assertTrue(seen.stream().noneMatch(s -> s.startsWith("other/")), seen.toString());
            }
        }
    }

    private static void drain(MessageStream stream, Set<String> seen) {
        try {
            while (!stream.ended()) {
                ConsumerRecord r = stream.poll(Duration.ofMillis(200));
                if (r != null) {
                    seen.add(r.topic() + "/" + r.valueAsString());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void write(Path root, String topic, List<String> partitions, int records) throws Exception {
        Files.createDirectories(root.resolve(topic));
        for (String p : partitions) {
            StringBuilder lines = new StringBuilder();
            for (int o = 0; o < records; o++) {
                lines.append(p).append(':').append(o).append('\n');
            }
            Files.writeString(root.resolve(topic).resolve(p + ".log"), lines);
        }
    }
}
