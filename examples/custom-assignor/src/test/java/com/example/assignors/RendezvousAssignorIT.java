package com.example.assignors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.ConsumerRecord;
import shepherd.consumer.ConsumerStatus;
import shepherd.consumer.MessageStream;
import shepherd.consumer.ShepherdConsumer;
import shepherd.coordination.assign.Assignment;
import shepherd.coordination.assign.AssignmentInput;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.RangeAssignor;
import shepherd.coordination.assign.RoundRobinAssignor;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.examples.harness.AppProcess;
import shepherd.examples.harness.Await;
import shepherd.examples.harness.ExampleCluster;
import shepherd.examples.harness.LogFiles;

/**
 * The assignor SPI from outside the project, the way a user plugs an assignor in: a broker started as a JVM of its
 * own ({@code java -p <broker modules>:<this module's jar> -m shepherd.cli/shepherd.cli.Main broker ...}, the
 * README's command) against a real ZooKeeper, with {@code group.assignor.overrides} naming {@code rendezvous} for one
 * group. Consumers of that group in this JVM then fetch exactly the partitions, on exactly the streams,
 * that {@link RendezvousAssignor} computes for the group; ZooKeeper records those owners and the assignor's name.
 * Without this module on its path the same broker refuses to start.
 */
class RendezvousAssignorIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String GROUP = "dashboards";
    private static final Pattern LISTENING = Pattern.compile("broker 1 listening on 127\\.0\\.0\\.1:(\\d+),.*");
    /** Consumer → (topic → streams): different counts and topics, so the streams of a topic differ per consumer. */
    private static final Map<String, Map<String, Integer>> SUBSCRIPTIONS = Map.of(
            "c-1", Map.of("clicks", 1, "views", 1),
            "c-2", Map.of("clicks", 2),
            "c-3", Map.of("clicks", 1, "views", 2));
    private static final int RECORDS_PER_PARTITION = 3;

    private ExampleCluster zookeeper;
    private final List<ShepherdConsumer> consumers = new ArrayList<>();

    @TempDir
    Path root;

    @BeforeEach
    void startZooKeeper() {
        zookeeper = ExampleCluster.start(0); // ZooKeeper only: the broker runs in its own JVM
    }

    @AfterEach
    void stopEverything() {
        consumers.forEach(ShepherdConsumer::halt);
        zookeeper.close();
    }

    @Test
    void aBrokerWithTheModuleAssignsTheGroupWithIt(TestInfo test) throws Exception {
        Map<String, List<PartitionId>> partitions = Map.of(
                "clicks", ids(zookeeper.createTopic("clicks", Map.of(1, 8))),
                "views", ids(zookeeper.createTopic("views", Map.of(1, 5))));
        AssignmentInput input = AssignmentInput.fromSubscriptions(partitions, SUBSCRIPTIONS, Map.of());
        Assignment expected = new RendezvousAssignor().assign(input);
        // Otherwise the test could not tell the broker used this assignor rather than a built-in one.
        assertNotEquals(new RangeAssignor().assign(input), expected, "pick an input where range differs");
        assertNotEquals(new RoundRobinAssignor().assign(input), expected, "pick an input where roundrobin differs");

        try (AppProcess broker = broker(test, "broker", brokerModulePath(true))) {
            String bootstrap = "127.0.0.1:" + port(broker);
            Map<StreamId, Set<String>> received = new ConcurrentHashMap<>();
            Map<String, ShepherdConsumer> members = new TreeMap<>();
            SUBSCRIPTIONS.forEach((id, topics) -> members.put(id, consume(bootstrap, id, topics, received)));

            Await.until(TIMEOUT, () -> "every member fetching its rendezvous partitions in one generation; now "
                    + statuses(members), () -> settledOn(expected, members));
            partitions.forEach((topic, ofTopic) -> ofTopic.forEach(p ->
                    LogFiles.append(root, topic, p.toString(), 0, RECORDS_PER_PARTITION)));
            Await.until(TIMEOUT, () -> "records from every partition; now " + received,
                    () -> received.values().stream().mapToInt(Set::size).sum() == expected.size());

            assertEquals(asText(expected.byStream()), received, "partitions received on each stream");
            assertEquals(ownersAsText(expected), zookeeper.owners(GROUP), "owners the coordinator wrote");
            assertEquals(Optional.of(RendezvousAssignor.NAME), zookeeper.assignorOf(GROUP));
            consumers.forEach(ShepherdConsumer::shutdown);
            broker.stop(TIMEOUT);
        }
    }

    @Test
    void aBrokerWithoutTheModuleRefusesToStart(TestInfo test) {
        // The negative control: the same command without this module's jar on the module path.
        try (AppProcess broker = broker(test, "broker-without-assignor", brokerModulePath(false))) {
            assertEquals(2, broker.awaitExit(TIMEOUT));
            String error = broker.errorOutput();
            assertTrue(error.contains("unknown assignor \"rendezvous\"; known assignors: range, roundrobin, sticky"),
                    error);
        }
    }

    /** The README's command: the broker's modules, then (or not) this module's jar; the group's assignor named. */
    private AppProcess broker(TestInfo test, String name, String modulePath) {
        Path output = Path.of(System.getProperty("example.output"), test.getTestMethod().orElseThrow().getName());
        return AppProcess.start(name, output, List.of("-p", modulePath, "-m", "shepherd.cli/shepherd.cli.Main",
                "broker", "--broker-id", "1", "--listen-host", "127.0.0.1", "--port", "0",
                "--zookeeper", zookeeper.zookeeperConnect(),
                "--set", "group.assignor.overrides=" + GROUP + "=" + RendezvousAssignor.NAME));
    }

    private static String brokerModulePath(boolean withAssignor) {
        String brokerModules = System.getProperty("example.broker-modules");
        return withAssignor ? brokerModules + File.pathSeparator + System.getProperty("example.modules")
                : brokerModules;
    }

    private static int port(AppProcess broker) {
        Matcher m = LISTENING.matcher(broker.awaitLine(TIMEOUT, "saying where it listens",
                line -> LISTENING.matcher(line).matches()));
        assertTrue(m.matches());
        return Integer.parseInt(m.group(1));
    }

    /** A member of the group with these streams, each drained on a thread of its own into {@code received}. */
    private ShepherdConsumer consume(String bootstrap, String id, Map<String, Integer> topics,
                                     Map<StreamId, Set<String>> received) {
        ShepherdConsumer consumer = ShepherdConsumer.create(ConsumerConfig.builder().bootstrap(bootstrap)
                .groupId(GROUP).consumerId(id).autoOffsetReset("smallest")
                .source("file", Map.of("root", root.toString())).build());
        consumers.add(consumer);
        consumer.createMessageStreams(topics).forEach((topic, streams) -> {
            for (int n = 0; n < streams.size(); n++) {
                StreamId stream = new StreamId(id, n); // stream n of a topic is "<consumer id>-<n>" (DESIGN §1)
                MessageStream messages = streams.get(n);
                Thread drain = new Thread(() -> drain(messages, stream, received), id + "-" + topic + "-" + n);
                drain.setDaemon(true);
                drain.start();
            }
        });
        return consumer;
    }

    private static void drain(MessageStream stream, StreamId id, Map<StreamId, Set<String>> received) {
        try {
            while (!stream.ended()) {
                ConsumerRecord r = stream.poll(Duration.ofMillis(200));
                if (r != null) {
                    received.computeIfAbsent(id, s -> ConcurrentHashMap.newKeySet()).add(r.topic() + "/"
                            + r.partition());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Every member fetching in the same generation, each exactly the partitions the assignor gives it. */
    private static boolean settledOn(Assignment expected, Map<String, ShepherdConsumer> members) {
        Set<Integer> generations = new TreeSet<>();
        for (Map.Entry<String, ShepherdConsumer> member : members.entrySet()) {
            ConsumerStatus status = member.getValue().status();
            Set<String> mine = expected.ofConsumer(member.getKey()).keySet().stream()
                    .map(TopicPartition::toString).collect(Collectors.toSet());
            if (!status.state().equals("FETCHING") || !Set.copyOf(status.assigned()).equals(mine)) {
                return false;
            }
            generations.add(status.generation());
        }
        return generations.size() == 1;
    }

    private static String statuses(Map<String, ShepherdConsumer> members) {
        return members.values().stream().map(c -> c.status().consumerId() + " " + c.status().state() + " g"
                + c.status().generation() + " " + c.status().assigned()).toList().toString();
    }

    private static List<PartitionId> ids(List<String> partitions) {
        return partitions.stream().map(PartitionId::parse).toList();
    }

    private static Map<StreamId, Set<String>> asText(Map<StreamId, List<TopicPartition>> byStream) {
        Map<StreamId, Set<String>> text = new TreeMap<>();
        byStream.forEach((stream, owned) -> text.put(stream, owned.stream().map(tp -> tp.topic() + "/"
                + tp.partition()).collect(Collectors.toSet())));
        return text;
    }

    private static SortedMap<String, SortedMap<String, String>> ownersAsText(Assignment assignment) {
        SortedMap<String, SortedMap<String, String>> owners = new TreeMap<>();
        assignment.owners().forEach((tp, stream) -> owners.computeIfAbsent(tp.topic(), t -> new TreeMap<>(
                (a, b) -> PartitionId.parse(a).compareTo(PartitionId.parse(b)))).put(tp.partition().toString(),
                stream.toString()));
        return owners;
    }
}
