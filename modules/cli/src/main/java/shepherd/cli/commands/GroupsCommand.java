package shepherd.cli.commands;

import java.io.PrintWriter;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import shepherd.protocol.DescribeGroupsResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.GroupDescription;
import shepherd.protocol.MemberDescription;
import shepherd.protocol.PartitionDescription;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.Subscription;
import shepherd.protocol.TopicStreams;
import shepherd.protocol.WildcardSubscription;

/**
 * {@code shepherd groups list|describe}: what only the coordinator knows about consumer groups — members and when
 * each last answered a ping, the generation, the rebalance in progress, owners, committed offsets — asked with
 * DescribeGroups (docs/protocol.md, api 7) and shown as tables (docs/cli.md). With {@code --file-root}, lag comes
 * from the file source's logs.
 *
 * <p>Exit codes: 0 answered; 1 the coordinator answered with an error (an unknown group, still loading); 2 the
 * cluster could not be asked (no bootstrap broker reachable, no coordinator, a bad {@code --file-root}) or the
 * options are invalid. Operational failures are one line on standard error, never a stack trace.
 */
@Command(name = "groups", mixinStandardHelpOptions = true,
        description = "Show consumer groups as their coordinator sees them: members and their last ping, the "
                + "generation and rebalance state, partition owners, committed offsets and (with --file-root) lag.",
        subcommands = {GroupsCommand.ListGroups.class, GroupsCommand.DescribeGroup.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the coordinator answered",
            "1:the coordinator answered with an error (unknown group, not ready yet)",
            "2:the cluster could not be asked (no broker reachable, no coordinator), or invalid options"})
public final class GroupsCommand implements Runnable {
    static final int EXIT_OK = 0;
    static final int EXIT_ANSWERED_ERROR = 1;
    static final int EXIT_UNREACHABLE = 2;

    @Spec
    CommandSpec spec;

    /** Without a subcommand there is nothing to show: say which there are. */
    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing subcommand: list or describe <group>");
    }

    /** {@code groups list}: one line per group. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List every group the coordinator holds: state, generation, members, partitions (and "
                    + "total lag with --file-root).")
    static final class ListGroups extends GroupSubcommand {
        @Override
        List<String> groupIds() {
            return List.of();
        }

        @Override
        Shown show(DescribeGroupsResponse r, GroupLag lag) {
            GroupTable table = lag == null
                    ? new GroupTable("GROUP", "STATE", "GENERATION", "MEMBERS", "PARTITIONS")
                    : new GroupTable("GROUP", "STATE", "GENERATION", "MEMBERS", "PARTITIONS", "LAG");
            for (GroupDescription g : r.groups()) {
                if (lag == null) {
                    table.row(g.groupId(), g.state(), g.generation(), g.members().size(), g.partitions().size());
                } else {
                    table.row(g.groupId(), g.state(), g.generation(), g.members().size(), g.partitions().size(),
                            totalLag(g, lag));
                }
            }
            String body = table.isEmpty() ? "(no groups)\n" : table.render();
            return Shown.ok(coordinatorLine(r) + body);
        }
    }

    /** {@code groups describe <group>}: its members and partitions. */
    @Command(name = "describe", mixinStandardHelpOptions = true,
            description = "Describe one group: its members (subscription, last ping) and its partitions (owner, "
                    + "stream, committed offset, and lag with --file-root).")
    static final class DescribeGroup extends GroupSubcommand {
        @Parameters(index = "0", paramLabel = "GROUP", description = "The group id.")
        String group;

        @Override
        List<String> groupIds() {
            return List.of(group);
        }

        @Override
        Shown show(DescribeGroupsResponse r, GroupLag lag) {
            GroupDescription g = r.groups().stream().filter(d -> d.groupId().equals(group)).findFirst()
                    .orElse(GroupDescription.unknown(group));
            if (g.errorCode() == ErrorCode.UNKNOWN_CONSUMER) {
                return Shown.error("group '" + group + "' is not known to the coordinator (broker "
                        + r.coordinatorId() + ", epoch " + r.coordinatorEpoch() + ")");
            }
            if (g.errorCode() != ErrorCode.NONE) {
                return Shown.error("group '" + group + "': the coordinator answered " + g.errorCode());
            }
            StringBuilder out = new StringBuilder();
            out.append("group ").append(g.groupId()).append(": generation ").append(g.generation())
                    .append(", state ").append(g.state()).append("; coordinator broker ").append(r.coordinatorId())
                    .append(" (epoch ").append(r.coordinatorEpoch()).append(")\n\n");
            GroupTable members = new GroupTable("MEMBER", "HOST", "SUBSCRIPTION", "LAST PING", "PING INTERVAL");
            for (MemberDescription m : g.members()) {
                String host = m.host().isEmpty() ? "-" : m.host();
                members.row(m.consumerId(), host, subscription(m.subscription()), pingAge(m.lastPingAgeMs()),
                        m.pingIntervalMs() + " ms");
            }
            out.append(members.isEmpty() ? "(no members)\n" : members.render()).append('\n');
            GroupTable partitions = lag == null
                    ? new GroupTable("PARTITION", "OWNER", "STREAM", "COMMITTED")
                    : new GroupTable("PARTITION", "OWNER", "STREAM", "COMMITTED", "LAG");
            for (PartitionDescription p : g.partitions()) {
                String owner = p.owner() == null ? "-" : p.owner();
                String stream = p.owner() == null ? "-" : p.owner() + "-" + p.stream();
                String committed = p.committedOffset() < 0 ? "-" : Long.toString(p.committedOffset());
                if (lag == null) {
                    partitions.row(p.topic() + "/" + p.partition(), owner, stream, committed);
                } else {
                    OptionalLong l = lag.lag(p.topic(), p.partition(), p.committedOffset());
                    partitions.row(p.topic() + "/" + p.partition(), owner, stream, committed,
                            l.isPresent() ? Long.toString(l.getAsLong()) : "-");
                }
            }
            out.append(partitions.isEmpty() ? "(no partitions owned or committed)\n" : partitions.render());
            return Shown.ok(out.toString());
        }
    }

    /** What one refresh shows: text for standard output, or one error line and the exit code it means. */
    record Shown(String text, String error, int exitCode) {
        static Shown ok(String text) {
            return new Shown(text, null, EXIT_OK);
        }

        static Shown error(String line) {
            return new Shown(null, line, EXIT_ANSWERED_ERROR);
        }

        static Shown unreachable(String line) {
            return new Shown(null, line, EXIT_UNREACHABLE);
        }
    }

    /** Discovery, one refresh or the watch loop, and error reporting, shared by the subcommands. */
    abstract static class GroupSubcommand implements Callable<Integer> {
        private static final String CLEAR_SCREEN = "\u001b[H\u001b[2J";
        private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");

        @Spec
        CommandSpec spec;

        @Mixin
        GroupOptions options;

        abstract List<String> groupIds();

        abstract Shown show(DescribeGroupsResponse response, GroupLag lag);

        @Override
        public Integer call() {
            if (options.count < 0) {
                throw new ParameterException(spec.commandLine(), "--count must not be negative");
            }
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            GroupLag lag;
            try {
                lag = options.fileRoot == null ? null : GroupLag.open(options.fileRoot);
            } catch (GroupAdminException e) {
                err.println(prefix() + e.getMessage());
                err.flush();
                return EXIT_UNREACHABLE;
            }
            try (GroupAdminClient client = new GroupAdminClient(options.bootstrap, options.timeout.toMillis())) {
                return options.watch ? watch(client, lag, out) : once(client, lag, out, err);
            } finally {
                if (lag != null) {
                    lag.close();
                }
            }
        }

        private int once(GroupAdminClient client, GroupLag lag, PrintWriter out, PrintWriter err) {
            Shown shown = refresh(client, lag);
            if (shown.text() != null) {
                out.print(shown.text());
                out.flush();
            } else {
                err.println(prefix() + shown.error());
                err.flush();
            }
            return shown.exitCode();
        }

        /**
         * Refreshes until Ctrl-C (the JVM's shutdown ends the loop) or {@code --count}. On a terminal each refresh
         * replaces the last (ANSI home and clear); elsewhere, blocks follow one another so a log keeps history.
         */
        private int watch(GroupAdminClient client, GroupLag lag, PrintWriter out) {
            boolean inPlace = System.console() != null;
            String title = "every " + describe(options.interval) + ": shepherd groups "
                    + String.join(" ", spec.commandLine().getCommandName(), String.join(" ", groupIds())).strip();
            for (int round = 1; options.count == 0 || round <= options.count; round++) {
                Shown shown = refresh(client, lag);
                String block = title + "   " + LocalTime.now().format(CLOCK) + "\n\n"
                        + (shown.text() != null ? shown.text() : prefix() + shown.error() + "\n");
                out.print(inPlace ? CLEAR_SCREEN + block : block + "\n");
                out.flush();
                if (options.count != 0 && round == options.count) {
                    break;
                }
                try {
                    Thread.sleep(options.interval.toMillis()); // the refresh period itself, not a wait for a condition
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return EXIT_OK;
        }

        private Shown refresh(GroupAdminClient client, GroupLag lag) {
            DescribeGroupsResponse r;
            try {
                r = client.describe(groupIds());
            } catch (GroupAdminException e) {
                return Shown.unreachable(e.getMessage());
            }
            if (r.errorCode() == ErrorCode.COORDINATOR_NOT_READY) {
                return Shown.error("the coordinator (broker " + r.coordinatorId()
                        + ") is still loading after its election; try again shortly");
            }
            if (r.errorCode() != ErrorCode.NONE) {
                return Shown.error("the coordinator answered " + r.errorCode());
            }
            return show(r, lag);
        }

        private static String prefix() {
            return "shepherd groups: ";
        }
    }

    static String coordinatorLine(DescribeGroupsResponse r) {
        return "coordinator: broker " + r.coordinatorId() + " (epoch " + r.coordinatorEpoch() + ")\n";
    }

    static String subscription(Subscription s) {
        if (s instanceof StaticSubscription named) {
            return named.topics().isEmpty() ? "(nothing)" : named.topics().stream()
                    .map(GroupsCommand::topicStreams).collect(Collectors.joining(", "));
        }
        WildcardSubscription w = (WildcardSubscription) s;
        return w.kind().name().toLowerCase(java.util.Locale.ROOT) + " /" + w.pattern() + "/ " + streams(w.streams());
    }

    private static String topicStreams(TopicStreams t) {
        return t.topic() + " " + streams(t.streams());
    }

    private static String streams(int n) {
        return "(" + n + (n == 1 ? " stream)" : " streams)");
    }

    static String pingAge(long ageMs) {
        if (ageMs < 0) {
            return "never";
        }
        return ageMs < 1_000 ? ageMs + " ms ago" : String.format(java.util.Locale.ROOT, "%.1f s ago", ageMs / 1000.0);
    }

    static String totalLag(GroupDescription g, GroupLag lag) {
        long total = 0;
        boolean any = false;
        for (PartitionDescription p : g.partitions()) {
            OptionalLong l = lag.lag(p.topic(), p.partition(), p.committedOffset());
            if (l.isPresent()) {
                total += l.getAsLong();
                any = true;
            }
        }
        return any ? Long.toString(total) : "-";
    }

    static String describe(java.time.Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
