package shepherd.examples.manualcommit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
 * Runs the example as its README does ({@code java -p target/modules -m shepherd.examples.manualcommit ...}, a JVM
 * of its own) against a real broker and a real ZooKeeper, and checks what the consumer API promises with auto-commit
 * off: every record is processed; a restarted application starts each partition exactly at the offset last
 * committed (which the test reads from ZooKeeper, where the coordinator wrote it); nothing below that offset is
 * delivered again; what is delivered again is only what was processed after the last commit (at least once).
 */
class ManualCommitIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern PROCESSED = Pattern.compile("processed (\\S+) (\\S+)@(\\d+): (.*)");

    private static ExampleCluster cluster;

    @TempDir
    Path root;

    /** One record as the application reported it: {@code processed <topic> <partition>@<offset>: <value>}. */
    record Processed(String topic, String partition, long offset, String value) {}

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
    void aRestartAfterACrashResumesAtTheLastCommitAndRedeliversOnlyWhatCameAfterIt(TestInfo test) {
        List<String> partitions = cluster.createTopic("orders", 4);
        Set<Processed> produced = produce("orders", partitions, 0, 9);          // 36 records

        // Run 1 commits after records 10, 20 and 30; records 31-36 are processed but not committed when it dies.
        List<String> firstLines;
        try (AppProcess first = app(test, "first", "billing", "orders", 10)) {
            first.awaitLines(TIMEOUT, "all 36 records processed", lines -> processed(lines).size() == 36);
            firstLines = first.lines();
            first.kill(TIMEOUT); // kill -9: no last commit, no goodbye
        }
        assertEquals(3, committedLines(firstLines), "commits after records 10, 20 and 30");
        Map<String, Long> committed = processedUpToLastCommit(firstLines);
        Map<String, Long> stored = cluster.committedOffsets("billing", "orders");
        for (String p : partitions) {
            assertEquals(committed.getOrDefault(p, 0L), stored.getOrDefault(p, 0L),
                    "the coordinator stored what the application committed for " + p + ": " + stored);
        }

        // Run 2, once the coordinator has given up on the dead run 1, is started at the committed offsets.
        Set<Processed> expectedAgain = new HashSet<>();
        produced.forEach(r -> {
            if (r.offset() >= committed.getOrDefault(r.partition(), 0L)) {
                expectedAgain.add(r);
            }
        });
        assertEquals(6, expectedAgain.size(), "36 processed, 30 committed");
        List<Processed> second;
        try (AppProcess run = app(test, "second", "billing", "orders", 10)) {
            run.awaitLines(TIMEOUT, "the uncommitted records processed again",
                    lines -> Set.copyOf(processed(lines)).containsAll(expectedAgain));
            run.stop(TIMEOUT);
            second = processed(run.lines());
        }
        assertEquals(expectedAgain, Set.copyOf(second),
                "run 2 delivers exactly the records at or past the committed offsets: nothing committed again");
        for (String p : partitions) {
            second.stream().filter(r -> r.partition().equals(p)).findFirst().ifPresent(r -> assertEquals(
                    committed.getOrDefault(p, 0L), r.offset(), "run 2 starts " + p + " at its committed offset"));
        }
        Set<Processed> all = new HashSet<>(processed(firstLines));
        all.addAll(second);
        assertEquals(produced, all, "every produced record was processed");
    }

    @Test
    void aStoppedApplicationCommitsWhatItProcessedSoItsSuccessorRedeliversNothing(TestInfo test) {
        List<String> partitions = cluster.createTopic("payments", 2);
        Set<Processed> before = produce("payments", partitions, 0, 7);          // 14 records

        List<Processed> first;
        try (AppProcess run = app(test, "first", "payroll", "payments", 5)) {
            run.awaitLines(TIMEOUT, "all 14 records processed", lines -> processed(lines).size() == 14);
            run.stop(TIMEOUT); // SIGTERM, as Ctrl-C: the application commits the last 4 and leaves
            assertTrue(run.lines().contains("left group payroll"), run.lines().toString());
            assertEquals(3, committedLines(run.lines()), "commits after records 5 and 10, and at the stop");
            first = processed(run.lines());
        }
        assertEquals(before, Set.copyOf(first));
        assertEquals(Map.of("1-0", 7L, "1-1", 7L), cluster.committedOffsets("payroll", "payments"));

        Set<Processed> after = produce("payments", partitions, 7, 3);           // 6 more records
        List<Processed> second;
        try (AppProcess run = app(test, "second", "payroll", "payments", 5)) {
            run.awaitLines(TIMEOUT, "the 6 new records processed", lines -> processed(lines).size() == 6);
            run.stop(TIMEOUT);
            second = processed(run.lines());
        }
        assertEquals(after, Set.copyOf(second), "run 2 delivers only the new records: everything else was committed");
        assertEquals(6, second.size(), "and each of them once");
    }

    @Test
    void missingArgumentsGetTheUsage(TestInfo test) {
        try (AppProcess run = AppProcess.start("no-arguments", outputDir(test), List.of("-p", modules(), "-m",
                "shepherd.examples.manualcommit"))) {
            assertEquals(2, run.awaitExit(TIMEOUT));
            String error = run.errorOutput();
            assertTrue(error.contains("manual-commit: missing --bootstrap, --group, --topic, --root"), error);
            assertTrue(error.contains("usage: java -p <module path> -m shepherd.examples.manualcommit"), error);
        }
    }

    /** The README's command. */
    private AppProcess app(TestInfo test, String name, String group, String topic, int commitEvery) {
        return AppProcess.start(name, outputDir(test), List.of("-p", modules(), "-m",
                "shepherd.examples.manualcommit", "--bootstrap", cluster.bootstrap(), "--group", group, "--topic",
                topic, "--root", root.toString(), "--commit-every", Integer.toString(commitEvery)));
    }

    private static String modules() {
        return System.getProperty("example.modules");
    }

    private static Path outputDir(TestInfo test) {
        return Path.of(System.getProperty("example.output"), test.getTestMethod().orElseThrow().getName());
    }

    /** Appends {@code count} records from offset {@code from} to every partition; returns them. */
    private Set<Processed> produce(String topic, List<String> partitions, long from, int count) {
        Set<Processed> records = new HashSet<>();
        for (String p : partitions) {
            List<String> values = LogFiles.append(root, topic, p, from, count);
            for (int i = 0; i < count; i++) {
                records.add(new Processed(topic, p, from + i, values.get(i)));
            }
        }
        return records;
    }

    private static List<Processed> processed(List<String> lines) {
        List<Processed> records = new ArrayList<>();
        for (String line : lines) {
            Matcher m = PROCESSED.matcher(line);
            if (m.matches()) {
                records.add(new Processed(m.group(1), m.group(2), Long.parseLong(m.group(3)), m.group(4)));
            }
        }
        return records;
    }

    private static long committedLines(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("committed ")).count();
    }

    /** partition → next offset, over the records processed before the last {@code committed} line. */
    private static Map<String, Long> processedUpToLastCommit(List<String> lines) {
        int last = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("committed ")) {
                last = i;
            }
        }
        Map<String, Long> next = new TreeMap<>();
        processed(lines.subList(0, last + 1)).forEach(r -> next.merge(r.partition(), r.offset() + 1, Math::max));
        return next;
    }
}
