package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import shepherd.cli.local.LocalCluster;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.ConsumerRecord;
import shepherd.consumer.MessageStream;
import shepherd.consumer.ShepherdConsumer;

/** The complete application of docs/consumer.md "Quick start", run against a local cluster so it cannot rot. */
class QuickStartIT {

    @Test
    void theQuickStartApplicationReadsEveryLine(@TempDir Path root) throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().brokers(1).start()) {
            cluster.createTopic("orders", 1);                       // partition "1-0"
            Files.createDirectories(root.resolve("orders"));
            Files.writeString(root.resolve("orders/1-0.log"), "first\nsecond\nthird\n");

            // --- the application, as in docs/consumer.md ---
            ConsumerConfig config = ConsumerConfig.builder()
                    .bootstrap(cluster.bootstrapString())
                    .groupId("billing")
                    .autoOffsetReset("smallest")
                    .consumerTimeoutMs(10_000)
                    .source("file", Map.of("root", root.toString()))
                    .build();
            List<String> seen = new ArrayList<>();
            try (ShepherdConsumer consumer = ShepherdConsumer.create(config)) {
                MessageStream stream = consumer.createMessageStreams(Map.of("orders", 1)).get("orders").get(0);
                for (ConsumerRecord record : stream) {
                    seen.add(record.valueAsString());                // your processing here
                    if (seen.size() == 3) {
                        break;
                    }
                }
            } // shutdown(): leaves the group, the coordinator commits the offsets
            // --- end of the application ---

            assertEquals(List.of("first", "second", "third"), seen);
            GroupRun.await(10_000, () -> "offset 3 committed: " + cluster.committedOffsets("billing"),
                    () -> Long.valueOf(3).equals(cluster.committedOffsets("billing")
                            .getOrDefault("orders", Map.of()).get("1-0")));
        }
    }
}
