package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import shepherd.cli.commands.GroupsCommand;

/**
 * {@code shepherd groups} against an in-process cluster with two real consumers on the file source: the tables
 * show what the coordinator knows (members with recent pings, owners, committed offsets) and the lag the logs
 * imply; unknown groups and unreachable brokers are one line and an exit code.
 */
class GroupsCommandIT {

    /** One run of the command: exit code, standard output, standard error. */
    record Run(int exitCode, String out, String err) {
        /** The rows of a table whose header starts with {@code firstColumn}, split on runs of two spaces or more. */
        List<List<String>> table(String firstColumn) {
            List<List<String>> rows = new ArrayList<>();
            boolean inTable = false;
            for (String line : out.split("\n")) {
                if (line.startsWith(firstColumn + " ")) {
                    inTable = true;
                    continue;
                }
                if (inTable) {
                    if (line.isBlank()) {
                        break;
                    }
                    rows.add(Arrays.asList(line.split(" {2,}")));
                }
            }
            return rows;
        }
    }

    static Run groups(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new GroupsCommand());
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void describeAndListShowMembersOwnersCommittedOffsetsAndLag(@TempDir Path root) {
        try (GroupRun run = new GroupRun(root, 2)) {
            run.start("c1");
            run.start("c2");
            run.awaitBalanced(List.of("c1", "c2"));
            run.produce(30);
            run.awaitAllDelivered();
            String bootstrap = run.cluster.bootstrapString();

            // Auto-commit rides on pings: wait until every partition shows the whole log committed (lag 0).
            AtomicReference<Run> last = new AtomicReference<>();
            GroupRun.await(30_000, () -> "every partition committed to 30 with lag 0; last output:\n"
                    + last.get(), () -> {
                        Run r = groups("describe", GroupRun.GROUP, "--bootstrap", bootstrap, "--file-root",
                                root.toString());
                        last.set(r);
                        List<List<String>> partitions = r.table("PARTITION");
                        return r.exitCode() == 0 && partitions.size() == run.partitions.size()
                                && partitions.stream().allMatch(p -> p.get(3).equals("30") && p.get(4).equals("0"));
                    });
            Run describe = last.get();
            assertTrue(describe.out().startsWith("group billing: generation "), describe.out());
            assertTrue(describe.out().contains("state IDLE"), describe.out());

            List<List<String>> members = describe.table("MEMBER");
            assertEquals(List.of("c1", "c2"), members.stream().map(m -> m.get(0)).toList(), describe.out());
            for (List<String> m : members) {
                assertEquals("127.0.0.1", m.get(1), "the consumers connect over loopback: " + m);
                assertEquals(GroupRun.TOPIC + " (1 stream)", m.get(2));
                assertTrue(m.get(3).endsWith(" ago"), "a recent ping: " + m);
                assertEquals("200 ms", m.get(4));
            }

            Map<String, String> owners = new TreeMap<>();
            for (List<String> p : describe.table("PARTITION")) {
                owners.put(p.get(0), p.get(1));
                assertEquals(p.get(1) + "-0", p.get(2), "the owner's only stream: " + p);
            }
            Map<String, String> expected = new TreeMap<>();
            run.cluster.owners(GroupRun.GROUP).get(GroupRun.TOPIC)
                    .forEach((partition, owner) -> expected.put(GroupRun.TOPIC + "/" + partition, owner));
            assertEquals(expected, owners, "the owners ZooKeeper holds");

            // Lag appears when records are appended and nobody consumes them yet.
            run.consumers.values().forEach(c -> c.shutdown());
            run.produce(5);
            Run lagging = groups("describe", GroupRun.GROUP, "--bootstrap", bootstrap, "--file-root", root.toString());
            assertEquals(0, lagging.exitCode(), lagging.err());
            for (List<String> p : lagging.table("PARTITION")) {
                assertEquals(35 - Long.parseLong(p.get(3)), Long.parseLong(p.get(4)), lagging.out());
            }

            Run list = groups("list", "--bootstrap", bootstrap, "--file-root", root.toString());
            assertEquals(0, list.exitCode(), list.err());
            System.out.printf("groups describe:%n%s%ngroups describe, consumers gone:%n%s%ngroups list:%n%s%n",
                    describe.out(), lagging.out(), list.out());
            List<List<String>> rows = list.table("GROUP");
            assertEquals(1, rows.size(), list.out());
            List<String> billing = rows.get(0);
            assertEquals(GroupRun.GROUP, billing.get(0));
            assertEquals(Integer.toString(run.partitions.size()), billing.get(4));

            Run unknown = groups("describe", "nope", "--bootstrap", bootstrap);
            assertEquals(1, unknown.exitCode());
            assertTrue(unknown.err().startsWith("shepherd groups: group 'nope' is not known to the coordinator"),
                    unknown.err());
            assertEquals("", unknown.out());
        }
    }

    @Test
    void watchWithoutATerminalPrintsRepeatedBlocks(@TempDir Path root) {
        try (GroupRun run = new GroupRun(root, 1)) {
            run.start("c1");
            run.awaitBalanced(List.of("c1"));
            Run watched = groups("describe", GroupRun.GROUP, "--bootstrap", run.cluster.bootstrapString(),
                    "--watch", "--interval", "100ms", "--count", "3");
            assertEquals(0, watched.exitCode(), watched.err());
            assertEquals(3, watched.out().split("every 100ms: shepherd groups describe billing", -1).length - 1,
                    watched.out());
            assertFalse(watched.out().contains("\u001b["), "no ANSI codes without a terminal");
        }
    }

    @Test
    void unreachableBrokersAreOneLineAndExitCodeTwo() {
        Run r = groups("list", "--bootstrap", "127.0.0.1:1,127.0.0.1:2", "--timeout", "2s");
        assertEquals(2, r.exitCode());
        assertEquals("", r.out());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("shepherd groups: cannot reach any bootstrap broker: 127.0.0.1:1"), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
    }

    @Test
    void aMissingFileRootIsOneLineAndExitCodeTwo(@TempDir Path root) {
        Run r = groups("list", "--bootstrap", "127.0.0.1:1", "--file-root", root.resolve("absent").toString());
        assertEquals(2, r.exitCode());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("shepherd groups: --file-root: "), r.err());
    }

    @Test
    void everyOptionHasHelpText() {
        for (String sub : List.of("list", "describe")) {
            Run help = groups(sub, "--help");
            assertEquals(0, help.exitCode());
            for (String option : List.of("--bootstrap", "--file-root", "--watch", "--interval", "--count",
                    "--timeout")) {
                assertTrue(help.out().contains(option), sub + " help mentions " + option + ":\n" + help.out());
            }
        }
        Run bad = groups("list", "--bootstrap", "nonsense");
        assertEquals(2, bad.exitCode());
        assertTrue(bad.err().contains("is not HOST:PORT"), bad.err());
    }
}
