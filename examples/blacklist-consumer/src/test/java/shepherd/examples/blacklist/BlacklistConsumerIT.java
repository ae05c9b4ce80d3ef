package shepherd.examples.blacklist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import shepherd.examples.harness.AppProcess;
import shepherd.examples.harness.ExampleCluster;
import shepherd.examples.harness.LogFiles;

/**
 * Runs the example as its README does ({@code java -p target/modules -m shepherd.examples.blacklist ...}, a JVM of
 * its own) against a real broker and a real ZooKeeper: a blacklist subscription delivers every record of every topic
 * the pattern does not match, including a topic created after the consumer started, and nothing of the topics it
 * matches, including one created after the start; the coordinator owns partitions of exactly the allowed topics.
 */
class BlacklistConsumerIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern RECEIVED = Pattern.compile("received (\\S+) (\\S+)@(\\d+) on stream (\\d+): (.*)");
    private static final String BLACKLIST = "internal-.*|.*-dlq";

    private static ExampleCluster cluster;

    @TempDir
    Path root;

    /** One record as the application reported it: {@code received <topic> <partition>@<offset> on stream <n>}. */
    record Received(String topic, String partition, long offset, String value) {}

    @BeforeAll
    static void startCluster() {
        cluster = ExampleCluster.start(1);
        cluster.awaitCoordinator(TIMEOUT);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void everyTopicButTheBlacklistedOnesIsReadIncludingTopicsCreatedWhileItRuns(TestInfo test) {
        Set<Received> allowed = new HashSet<>();
        allowed.addAll(topic("orders", 2, 5));
        allowed.addAll(topic("payments", 2, 5));
        topic("internal-audit", 2, 5);
        topic("orders-dlq", 1, 5);

        List<Received> got;
        try (AppProcess app = app(test, "audit", BLACKLIST)) {
            app.awaitLines(TIMEOUT, "every record of orders and payments",
                    lines -> received(lines).containsAll(allowed));

            // Created while the application runs, the blacklisted one first: by the time every record of the
            // allowed one has arrived, a subscription that let the blacklisted one through would have read it too.
            topic("internal-metrics", 1, 5);
            Set<Received> later = topic("shipments", 2, 5);
            allowed.addAll(later);
            app.awaitLines(TIMEOUT, "every record of shipments, created after the start",
                    lines -> received(lines).containsAll(later));
            assertEquals(Set.of("orders", "payments", "shipments"), cluster.owners("audit").keySet(),
                    "the coordinator assigned the partitions of exactly the topics the blacklist lets through");

            app.stop(TIMEOUT);
            assertTrue(app.lines().contains("left group audit"), app.lines().toString());
            got = receivedInOrder(app.lines());
        }
        List<Received> blacklisted = got.stream().filter(r -> r.topic().matches(BLACKLIST)).toList();
        assertEquals(List.of(), blacklisted, "records of blacklisted topics were delivered");
        assertEquals(allowed, Set.copyOf(got), "every record of every other topic was delivered");
    }

    @Test
    void anInvalidPatternGetsTheUsage(TestInfo test) {
        try (AppProcess app = app(test, "audit", "internal-(")) {
            assertEquals(2, app.awaitExit(TIMEOUT));
            String error = app.errorOutput();
            assertTrue(error.contains("blacklist-consumer: topicFilter: pattern 'internal-(' is not a valid regular"
                    + " expression"), error);
            assertTrue(error.contains("usage: java -p <module path> -m shepherd.examples.blacklist"), error);
        }
    }

    @Test
    void missingArgumentsGetTheUsage(TestInfo test) {
        try (AppProcess app = AppProcess.start("no-arguments", outputDir(test), List.of("-p", modules(), "-m",
                "shepherd.examples.blacklist"))) {
            assertEquals(2, app.awaitExit(TIMEOUT));
            String error = app.errorOutput();
            assertTrue(error.contains("blacklist-consumer: missing --bootstrap, --group, --blacklist, --root"), error);
        }
    }

    /** The README's command. */
    private AppProcess app(TestInfo test, String group, String blacklist) {
        return AppProcess.start(group, outputDir(test), List.of("-p", modules(), "-m", "shepherd.examples.blacklist",
                "--bootstrap", cluster.bootstrap(), "--group", group, "--blacklist", blacklist,
                "--root", root.toString(), "--streams", "2"));
    }

    private static String modules() {
        return System.getProperty("example.modules");
    }

    private static Path outputDir(TestInfo test) {
        return Path.of(System.getProperty("example.output"), test.getTestMethod().orElseThrow().getName());
    }

    /** Creates {@code topic} with {@code partitions} partitions and appends {@code records} to each; returns them. */
    private Set<Received> topic(String topic, int partitions, int records) {
        Set<Received> written = new HashSet<>();
        for (String p : cluster.createTopic(topic, partitions)) {
            List<String> values = LogFiles.append(root, topic, p, 0, records);
            for (int offset = 0; offset < records; offset++) {
                written.add(new Received(topic, p, offset, values.get(offset)));
            }
        }
        return written;
    }

    private static Set<Received> received(List<String> lines) {
        return new HashSet<>(receivedInOrder(lines));
    }

    private static List<Received> receivedInOrder(List<String> lines) {
        List<Received> records = new ArrayList<>();
        for (String line : lines) {
            Matcher m = RECEIVED.matcher(line);
            if (m.matches()) {
                records.add(new Received(m.group(1), m.group(2), Long.parseLong(m.group(3)), m.group(5)));
            }
        }
        return records;
    }
}
