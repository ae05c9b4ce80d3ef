package shepherd.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import shepherd.cli.commands.ProduceCommand;
import shepherd.cli.local.LocalCluster;

/** {@code shepherd produce} appending to the file source, with partitions from ZooKeeper or given. */
class ProduceCommandIT {
    @TempDir
    Path root;

    private static CommandRun produce(String input, String... args) {
        return CommandRun.run(new ProduceCommand().withInput(new ByteArrayInputStream(input.getBytes(UTF_8))),
                args);
    }

    private List<String> lines(String topic, String partition) throws IOException {
        Path log = root.resolve(topic).resolve(partition + ".log");
        return Files.exists(log) ? Files.readString(log, UTF_8).lines().toList() : List.of();
    }

    @Test
    void generatedValuesGoRoundRobinOverTheTopicsPartitionsInZooKeeper() throws IOException {
        try (LocalCluster cluster = LocalCluster.builder().brokers(2).start()) {
            List<String> partitions = cluster.createTopic("events", 2);
            CommandRun run = produce("", "--root", root.toString(), "--topic", "events", "--zookeeper",
                    cluster.zookeeperConnectString(), "--prefix", "r", "--count", "8").assertOk();
            assertTrue(run.out().startsWith("appended 8 records to topic events\n"), run::toString);
            List<String> all = new ArrayList<>();
            for (String p : partitions) {
                List<String> lines = lines("events", p);
                assertEquals(2, lines.size(), () -> p + " gets its share: " + run);
                assertTrue(run.out().contains("  " + p + ": 2 -> "), run::toString);
                all.addAll(lines);
            }
            all.sort(null);
            assertEquals(List.of("r-0", "r-1", "r-2", "r-3", "r-4", "r-5", "r-6", "r-7"), all);

            CommandRun unknown = produce("", "--root", root.toString(), "--topic", "ghost", "--zookeeper",
                    cluster.zookeeperConnectString(), "--prefix", "r").assertOneLineError(1);
            assertTrue(unknown.err().contains("topic 'ghost' does not exist"), unknown::toString);
        }
    }

    @Test
    void standardInputLinesAreRecordsExactly() throws IOException {
        produce("a\nb\r\n\nc", "--root", root.toString(), "--topic", "t", "--partition", "1-0").assertOk();
        assertEquals("a\nb\r\n\nc\n", Files.readString(root.resolve("t/1-0.log"), UTF_8),
                "one line per record; '\\r' and empty lines kept; the last line gets its newline");

        CommandRun two = produce("x\ny\nz\n", "--root", root.toString(), "--topic", "t", "--partitions",
                "1-0,2-1", "--count", "2").assertOk();
        assertTrue(two.out().startsWith("appended 2 records"), two::toString);
        List<String> first = lines("t", "1-0");
        List<String> second = lines("t", "2-1");
        assertEquals(5, first.size(), two::toString);
        assertEquals(1, second.size(), two::toString);
        assertEquals(java.util.Set.of("x", "y"), java.util.Set.of(first.get(4), second.get(0)),
                "--count 2 takes the first two lines, one to each partition");
    }

    @Test
    void refusals() {
        String r = root.toString();
        assertTrue(produce("", "--root", r, "--topic", "t", "--partition", "1-0", "--prefix", "a\nb")
                .assertOneLineError(2).err().contains("--prefix must not contain a line break"));
        assertTrue(produce("", "--root", r, "--topic", "t", "--partition", "x-1", "--prefix", "a")
                .assertOneLineError(2).err().contains("x-1"));
        assertTrue(produce("", "--root", r, "--topic", "t", "--prefix", "a").assertOneLineError(2).err()
                .contains("say where the records go"));
        assertTrue(produce("", "--root", r, "--topic", "../up", "--partition", "1-0", "--prefix", "a")
                .assertOneLineError(2).err().contains("'../up' has the character '/'"));
        assertTrue(produce("", "--root", root.resolve("missing").toString(), "--topic", "t", "--partition", "1-0")
                .assertOneLineError(2).err().contains("is not an existing directory"));
        assertEquals(2, produce("", "--root", r, "--topic", "t", "--partition", "1-0", "--partitions", "1-1")
                .exitCode(), "--partition and --partitions exclude each other");
    }
}
