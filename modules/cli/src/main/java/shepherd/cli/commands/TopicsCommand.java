package shepherd.cli.commands;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import shepherd.cli.admin.AdminException;
import shepherd.cli.admin.Names;
import shepherd.cli.admin.ZkAdmin;
import shepherd.cli.admin.ZkAdmin.TopicWrite;
import shepherd.coordination.assign.PartitionId;

/**
 * {@code shepherd topics create|list|describe}: the topics under {@code /brokers/topics} (docs/zookeeper-layout.md).
 * A topic is a count of partitions per broker; broker {@code b} with count {@code k} holds partitions
 * {@code b-0 .. b-(k-1)}. Partitions are only ever added: a removed partition would orphan its log and its
 * committed offsets.
 */
@Command(name = "topics",
        description = "Create, grow, list and describe topics in ZooKeeper.",
        mixinStandardHelpOptions = true,
        subcommands = {TopicsCommand.Create.class, TopicsCommand.ListTopics.class, TopicsCommand.Describe.class})
public final class TopicsCommand extends AdminCommand {

    /** Without a subcommand: the usage, as a usage error. */
    @Override
    int execute() {
        spec.commandLine().usage(err());
        return EXIT_USAGE;
    }

    /** Options of every subcommand that talks to ZooKeeper. */
    abstract static class ZkSubcommand extends AdminCommand {
        @Option(names = "--zookeeper", required = true, paramLabel = "CONNECT",
                description = "ZooKeeper of the cluster: host:port[,host:port...][/chroot] (the brokers'"
                        + " zookeeper.connect).")
        String zookeeper;
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = {"Create a topic with N partitions on each of the given brokers, or grow one with --add.",
                "Writes /brokers/topics/<topic>/<brokerId> in one ZooKeeper transaction."})
    public static final class Create extends ZkSubcommand {
        @Parameters(index = "0", paramLabel = "TOPIC",
                description = "Topic name: 1-255 of letters, digits, '.', '_', '-'; not '.' or '..'.")
        String topic;

        @Option(names = "--partitions-per-broker", required = true, paramLabel = "N",
                description = "Partitions on each broker (0-100000). With --add: the new count, not an increment.")
        int partitionsPerBroker;

        @Option(names = "--brokers", split = ",", paramLabel = "ID",
                description = "Broker ids to place partitions on, e.g. 1,2,3. Default: the brokers registered now.")
        List<Integer> brokers;

        @Option(names = "--add",
                description = "Grow an existing topic to N partitions per broker (brokers not listed keep theirs);"
                        + " a decrease is refused.")
        boolean add;

        @Override
        int execute() {
            Names.invalidId("topic", topic).ifPresent(reason -> {
                throw new UsageException(reason);
            });
            if (partitionsPerBroker < 0 || partitionsPerBroker > 100_000) {
                throw new UsageException("--partitions-per-broker must be between 0 and 100000, got "
                        + partitionsPerBroker);
            }
            if (brokers != null) {
                brokers.stream().filter(id -> id < 0).findFirst().ifPresent(id -> {
                    throw new UsageException("--brokers: broker ids are non-negative, got " + id);
                });
            }
            try (ZkAdmin zk = openZooKeeper(zookeeper)) {
                List<Integer> ids = brokers != null ? brokers.stream().distinct().sorted().toList() : zk.brokerIds();
                if (ids.isEmpty()) {
                    throw new AdminException("no broker is registered under /brokers/ids of " + zookeeper
                            + ": start the brokers first, or name them with --brokers");
                }
                Map<Integer, Integer> counts = new LinkedHashMap<>();
                ids.forEach(id -> counts.put(id, partitionsPerBroker));
                SortedMap<Integer, Integer> before = zk.writeTopic(topic, counts,
                        add ? TopicWrite.GROW : TopicWrite.CREATE);
                report(before, counts);
            }
            return EXIT_OK;
        }

        private void report(SortedMap<Integer, Integer> before, Map<Integer, Integer> counts) {
            if (!add) {
                out().printf("created topic %s: %d partitions per broker on brokers %s (%d partitions)%n", topic,
                        partitionsPerBroker, joined(counts.keySet()), partitionsPerBroker * counts.size());
                return;
            }
            List<String> added = new ArrayList<>();
            counts.forEach((id, n) -> IntStream.range(before.getOrDefault(id, 0), n)
                    .forEach(p -> added.add(new PartitionId(id, p).toString())));
            if (added.isEmpty()) {
                out().printf("topic %s unchanged: brokers %s already have %d partitions each%n", topic,
                        joined(counts.keySet()), partitionsPerBroker);
            } else {
                out().printf("grew topic %s by %d partitions: %s%n", topic, added.size(), String.join(" ", added));
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List the topics with their partition counts.")
    public static final class ListTopics extends ZkSubcommand {
        @Override
        int execute() {
            try (ZkAdmin zk = openZooKeeper(zookeeper)) {
                List<String> topics = zk.topics();
                if (topics.isEmpty()) {
                    out().println("no topics");
                }
                for (String topic : topics) {
                    SortedMap<Integer, Integer> counts = zk.topicPartitions(topic).orElse(new java.util.TreeMap<>());
                    int total = counts.values().stream().mapToInt(Integer::intValue).sum();
                    out().printf("%s\tpartitions=%d\tbrokers=%s%n", topic, total, counts.entrySet().stream()
                            .map(e -> e.getKey() + ":" + e.getValue()).collect(Collectors.joining(",")));
                }
            }
            return EXIT_OK;
        }
    }

    @Command(name = "describe", mixinStandardHelpOptions = true,
            description = "Show a topic's partition ids (\"<brokerId>-<n>\") per broker.")
    public static final class Describe extends ZkSubcommand {
        @Parameters(index = "0", paramLabel = "TOPIC", description = "The topic to describe.")
        String topic;

        @Override
        int execute() {
            Names.invalidId("topic", topic).ifPresent(reason -> {
                throw new UsageException(reason);
            });
            try (ZkAdmin zk = openZooKeeper(zookeeper)) {
                SortedMap<Integer, Integer> counts = zk.topicPartitions(topic).orElseThrow(() ->
                        new AdminException("topic '" + topic + "' does not exist (topics: " + zk.topics() + ")"));
                int total = counts.values().stream().mapToInt(Integer::intValue).sum();
                out().printf("topic %s: %d partitions on %d brokers%n", topic, total, counts.size());
                counts.forEach((id, n) -> out().printf("broker %d: %s%n", id, n == 0 ? "(none)"
                        : IntStream.range(0, n).mapToObj(p -> new PartitionId(id, p).toString())
                                .collect(Collectors.joining(" "))));
            }
            return EXIT_OK;
        }
    }

    private static String joined(java.util.Collection<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
