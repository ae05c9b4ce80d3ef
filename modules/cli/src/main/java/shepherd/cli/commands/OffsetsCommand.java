package shepherd.cli.commands;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.SortedMap;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import shepherd.cli.admin.AdminException;
import shepherd.cli.admin.Names;
import shepherd.cli.admin.ZkAdmin;
import shepherd.consumer.PartitionLogs;
import shepherd.consumer.PartitionSource;
import shepherd.coordination.assign.InvalidIdException;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.TopicPartition;

/**
 * {@code shepherd offsets reset}: writes a group's committed offsets ({@code /consumers/groups/[g]/offsets/[t]/[p]},
 * the next offset to consume) as an operator's repair or replay.
 *
 * <p>Only while the group has no members: a member keeps consuming from its own position and reports it with its
 * next Ping or Stop, so a reset under a live group would be overwritten (or, worse, half applied). Members are the
 * registrations under {@code .../ids}; the coordinator deletes one when its consumer leaves or its lease runs out.
 * {@code --force} writes anyway, for a registration left behind by a consumer that will never come back.
 *
 * <p>No coordinator restart is needed: a coordinator stops trusting the offsets it holds for a group once the group
 * has no member, and reads the group from ZooKeeper again before it starts the group's next member, so the next
 * consumer of the group starts at the offsets written here.
 */
@Command(name = "offsets",
        description = "Manage the committed offsets of consumer groups.",
        mixinStandardHelpOptions = true,
        subcommands = OffsetsCommand.Reset.class)
public final class OffsetsCommand extends AdminCommand {

    @Override
    int execute() {
        spec.commandLine().usage(err());
        return EXIT_USAGE;
    }

    @Command(name = "reset", mixinStandardHelpOptions = true,
            description = {"Set a group's committed offsets of a topic to the earliest or latest record, or to an"
                    + " offset.",
                "Refused while the group has members, unless --force. Prints each partition's offset before and"
                    + " after."})
    public static final class Reset extends AdminCommand {
        @Option(names = "--zookeeper", required = true, paramLabel = "CONNECT",
                description = "ZooKeeper of the cluster: host:port[,host:port...][/chroot].")
        String zookeeper;

        @Option(names = "--group", required = true, paramLabel = "GROUP", description = "The consumer group.")
        String group;

        @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic to reset.")
        String topic;

        @Option(names = "--partition", paramLabel = "ID",
                description = "Only this partition (\"<brokerId>-<n>\"). Default: every partition of the topic.")
        String partition;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Target target;

        static final class Target {
            @Option(names = "--to-earliest", required = true,
                    description = "The first record of each log (0 for the file source, which never deletes).")
            boolean earliest;

            @Option(names = "--to-latest", required = true,
                    description = "The end of each log: only records appended later are consumed. Needs"
                            + " --file-root.")
            boolean latest;

            @Option(names = "--to-offset", required = true, paramLabel = "N",
                    description = "This offset (>= 0), the next record to consume.")
            Long offset;
        }

        @Option(names = "--file-root", paramLabel = "DIR",
                description = "Root directory of the file source (<root>/<topic>/<partition>.log), to find the"
                        + " log ends.")
        Path fileRoot;

        @Option(names = "--force",
                description = "Write even though the group has registered members (they may overwrite the reset"
                        + " with their next commit).")
        boolean force;

        @Override
        int execute() throws Exception {
            Names.invalidId("group", group).ifPresent(reason -> {
                throw new UsageException("--group: " + reason);
            });
            Names.invalidId("topic", topic).ifPresent(reason -> {
                throw new UsageException("--topic: " + reason);
            });
            if (target.offset != null && target.offset < 0) {
                throw new UsageException("--to-offset must be >= 0, got " + target.offset);
            }
            if (target.latest && fileRoot == null) {
                throw new UsageException("--to-latest needs --file-root DIR: the log ends are in the file source");
            }
            if (fileRoot != null && !Files.isDirectory(fileRoot)) {
                throw new UsageException("--file-root " + fileRoot + " is not an existing directory");
            }
            try (ZkAdmin zk = openZooKeeper(zookeeper)) {
                List<TopicPartition> partitions = partitions(zk);
                refuseLiveMembers(zk);
                Map<TopicPartition, Long> after = targets(partitions);
                Map<TopicPartition, Optional<Long>> before = new LinkedHashMap<>();
                partitions.forEach(tp -> before.put(tp, zk.offset(group, tp)));
                zk.writeOffsets(group, after);
                out().printf("reset offsets of group %s, topic %s (%d partitions):%n", group, topic, after.size());
                after.forEach((tp, offset) -> out().printf("  %s: %s -> %d%n", tp.partition(),
                        before.get(tp).map(String::valueOf).orElse("none"), offset));
            }
            return EXIT_OK;
        }

        private List<TopicPartition> partitions(ZkAdmin zk) {
            SortedMap<Integer, Integer> counts = zk.topicPartitions(topic).orElseThrow(() ->
                    new AdminException("topic '" + topic + "' does not exist (topics: " + zk.topics() + ")"));
            List<TopicPartition> all = new ArrayList<>();
            counts.forEach((id, n) -> {
                for (int p = 0; p < n; p++) {
                    all.add(new TopicPartition(topic, new PartitionId(id, p)));
                }
            });
            if (partition == null) {
                if (all.isEmpty()) {
                    throw new AdminException("topic '" + topic + "' has no partitions");
                }
                return all;
            }
            TopicPartition one;
            try {
                one = TopicPartition.of(topic, partition);
            } catch (InvalidIdException e) {
                throw new UsageException("--partition: " + e.getMessage());
            }
            if (!all.contains(one)) {
                throw new AdminException("partition " + partition + " is not a partition of topic '" + topic
                        + "' (it has " + all.size() + ": " + summary(counts) + ")");
            }
            return List.of(one);
        }

        /** Members keep their own positions and would overwrite a reset: the group must be empty. */
        private void refuseLiveMembers(ZkAdmin zk) {
            List<String> members = zk.members(group);
            if (members.isEmpty()) {
                return;
            }
            String named = members.size() <= 10 ? String.join(", ", members)
                    : String.join(", ", members.subList(0, 10)) + ", ...";
            if (!force) {
                throw new AdminException("group " + group + " has " + members.size() + " live member"
                        + (members.size() == 1 ? "" : "s") + " (" + named + "): stop them first, or pass --force");
            }
            err().println("warning: group " + group + " has live members (" + named + "); writing anyway (--force):"
                    + " they may overwrite the reset with their next commit");
        }

        private Map<TopicPartition, Long> targets(List<TopicPartition> partitions) throws Exception {
            Map<TopicPartition, Long> after = new LinkedHashMap<>();
            if (target.offset != null) {
                partitions.forEach(tp -> after.put(tp, target.offset));
                return after;
            }
            if (fileRoot == null) { // --to-earliest without a source: the file source never deletes lines
                partitions.forEach(tp -> after.put(tp, 0L));
                return after;
            }
            try (PartitionLogs logs = fileSource().open(Map.of("root", fileRoot.toString()))) {
                for (TopicPartition tp : partitions) {
                    String id = tp.partition().toString();
                    after.put(tp, target.latest ? logs.latestOffset(topic, id) : logs.earliestOffset(topic, id));
                }
            }
            return after;
        }

        private static String summary(SortedMap<Integer, Integer> counts) {
            StringBuilder b = new StringBuilder();
            counts.forEach((id, n) -> b.append(b.length() == 0 ? "" : ", ").append(n == 0 ? "none"
                    : n == 1 ? id + "-0" : id + "-0.." + id + "-" + (n - 1)));
            return b.toString();
        }
    }

    /** The built-in {@code file} source, found as the consumer finds it: through {@link ServiceLoader}. */
    static PartitionSource fileSource() {
        return ServiceLoader.load(PartitionSource.class).stream().map(ServiceLoader.Provider::get)
                .filter(s -> s.name().equals("file")).findFirst()
                .orElseThrow(() -> new AdminException("the file partition source is not on the module path"
                        + " (module shepherd.source.file)"));
    }
}
