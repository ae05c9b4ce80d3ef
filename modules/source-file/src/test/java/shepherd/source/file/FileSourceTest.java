package shepherd.source.file;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import shepherd.consumer.InvalidSourceSettingsException;
import shepherd.consumer.PartitionLogs;
import shepherd.consumer.PartitionReader;
import shepherd.consumer.PartitionSource;
import shepherd.consumer.SourceRecord;

class FileSourceTest {
    /** Long enough never to expire on a loaded CI machine; a passing test returns as soon as its records arrive. */
    private static final long WAIT_MS = 10_000;

    @TempDir
    Path root;

    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void closeEverything() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    // ---- settings

    @Test
    void missingRootIsRejectedNamingTheKey() {
        InvalidSourceSettingsException e = assertThrows(InvalidSourceSettingsException.class,
                () -> new FileSource().open(Map.of()));
        assertEquals("root", e.key());
        assertTrue(e.getMessage().contains("root is required"), e.getMessage());
        assertEquals("root", assertThrows(InvalidSourceSettingsException.class,
                () -> new FileSource().open(Map.of("root", " "))).key());
    }

    @Test
    void rootThatIsNotAnExistingDirectoryIsRejectedNamingTheValue() throws IOException {
        Path file = Files.writeString(root.resolve("plain"), "x\n");
        InvalidSourceSettingsException e = assertThrows(InvalidSourceSettingsException.class,
                () -> new FileSource().open(Map.of("root", file.toString())));
        assertEquals("root", e.key());
        assertTrue(e.getMessage().contains("root='" + file + "' is not an existing directory"), e.getMessage());

        Path missing = root.resolve("nowhere");
        e = assertThrows(InvalidSourceSettingsException.class,
                () -> new FileSource().open(Map.of("root", missing.toString())));
        assertTrue(e.getMessage().contains("'" + missing + "'") && e.getMessage().contains("does not exist"),
                e.getMessage());
    }

    @Test
    void unknownSettingIsRejectedListingTheKnownOnes() {
        InvalidSourceSettingsException e = assertThrows(InvalidSourceSettingsException.class,
                () -> new FileSource().open(Map.of("root", root.toString(), "rot", "/tmp")));
        assertEquals("rot", e.key());
        assertTrue(e.getMessage().contains("unknown setting rot") && e.getMessage().contains("known settings: [root]"),
                e.getMessage());
    }

    /** The tests run patched into the named module, so this exercises module-info's provides, not META-INF. */
    @Test
    void serviceLoaderFindsTheFileSourceByName() throws IOException {
        Module module = FileSourceTest.class.getModule();
        assertTrue(module.isNamed(), "tests must run on the module path");
        // The consumer declares `uses`; this module only provides, so the test asks for the right to look it up.
        module.addUses(PartitionSource.class);
        List<PartitionSource> sources = ServiceLoader.load(PartitionSource.class).stream()
                .map(ServiceLoader.Provider::get).filter(s -> s.name().equals("file")).collect(Collectors.toList());
        assertEquals(1, sources.size());
        assertInstanceOf(FileSource.class, sources.get(0));

        // Class-path users find it through META-INF/services instead.
        try (InputStream in = FileSource.class.getResourceAsStream(
                "/META-INF/services/shepherd.consumer.PartitionSource")) {
            assertEquals(FileSource.class.getName(), new String(in.readAllBytes(), UTF_8).strip());
        }
    }

    // ---- ends of a log

    @Test
    void missingLogIsEmpty() throws IOException {
        PartitionLogs logs = open();
        assertEquals(0, logs.earliestOffset("orders", "0-0"));
        assertEquals(0, logs.latestOffset("orders", "0-0"));
    }

    @Test
    void partialLastLineIsNotARecordYet() throws IOException {
        PartitionLogs logs = open();
        append("orders", "0-1", "a\nb\nc");
        assertEquals(0, logs.earliestOffset("orders", "0-1"));
        assertEquals(2, logs.latestOffset("orders", "0-1"));
        append("orders", "0-1", "\nd\n");
        assertEquals(4, logs.latestOffset("orders", "0-1"), "counts on from where it stopped");
        assertEquals(0, logs.earliestOffset("orders", "0-1"));
    }

    // ---- readers

    @Test
    void readsFromTheStart() throws Exception {
        append("t", "1-0", "a\nbb\nccc\n");
        PartitionReader reader = open().reader("t", "1-0", 0);
        assertEquals(List.of(rec(0, "a"), rec(1, "bb"), rec(2, "ccc")), reader.read(10, 0));
        assertEquals(List.of(), reader.read(10, 0));
    }

    @Test
    void readsFromTheMiddle() throws Exception {
        append("t", "1-0", "a\nbb\nccc\ndddd\n");
        PartitionReader reader = open().reader("t", "1-0", 2);
        assertEquals(List.of(rec(2, "ccc"), rec(3, "dddd")), reader.read(10, 0));
    }

    @Test
    void readerPastTheEndWaitsForAppendedLines() throws Exception {
        append("t", "0-0", "l0\nl1\n");
        PartitionReader reader = open().reader("t", "0-0", 4);
        assertEquals(List.of(), reader.read(10, 0));

        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            for (int i = 2; i < 8; i++) {
                append("t", "0-0", "l" + i + "\n");
            }
        });
        assertEquals(List.of(rec(4, "l4"), rec(5, "l5"), rec(6, "l6"), rec(7, "l7")), readAtLeast(reader, 4));
        writer.get(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    @Test
    void readerOnMissingLogWaitsForItToAppear() throws Exception {
        PartitionReader reader = open().reader("later", "2-5", 0);
        assertEquals(List.of(), reader.read(10, 0));
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> append("later", "2-5", "first\n"));
        assertEquals(List.of(rec(0, "first")), readAtLeast(reader, 1));
        writer.get(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    @Test
    void partialLineBecomesARecordWhenItsNewlineArrives() throws Exception {
        append("t", "0-0", "a\nbc");
        PartitionReader reader = open().reader("t", "0-0", 0);
        assertEquals(List.of(rec(0, "a")), reader.read(10, 0));
        assertEquals(List.of(), reader.read(10, 0));
        append("t", "0-0", "d");
        assertEquals(List.of(), reader.read(10, 0));
        append("t", "0-0", "\ne");
        assertEquals(List.of(rec(1, "bcd")), reader.read(10, 0));
    }

    @Test
    void maxRecordsIsRespectedAndReadingContinues() throws Exception {
        append("t", "0-0", IntStream.range(0, 7).mapToObj(i -> i + "\n").collect(Collectors.joining()));
        PartitionReader reader = open().reader("t", "0-0", 0);
        assertEquals(List.of(rec(0, "0"), rec(1, "1"), rec(2, "2")), reader.read(3, 0));
        assertEquals(List.of(rec(3, "3"), rec(4, "4"), rec(5, "5")), reader.read(3, 0));
        assertEquals(List.of(rec(6, "6")), reader.read(3, 0));
    }

    @Test
    void emptyLinesAreRecordsAndBytesAreKeptExactly() throws Exception {
        append("t", "0-0", "\n\nx\r\n");
        PartitionLogs logs = open();
        assertEquals(3, logs.latestOffset("t", "0-0"));
        List<SourceRecord> records = logs.reader("t", "0-0", 0).read(10, 0);
        assertEquals(List.of(rec(0, ""), rec(1, ""), rec(2, "x\r")), records);
    }

    @Test
    void manyLinesAcrossBufferBoundariesAreReadExactlyOnce() throws Exception {
        List<String> lines = IntStream.range(0, 20_000).mapToObj(i -> "v".repeat(i % 37) + i)
                .collect(Collectors.toList());
        append("big", "3-1", String.join("\n", lines) + "\n");
        PartitionLogs logs = open();
        assertEquals(lines.size(), logs.latestOffset("big", "3-1"));
        PartitionReader reader = logs.reader("big", "3-1", 12_345);
        List<SourceRecord> got = new ArrayList<>();
        for (List<SourceRecord> batch = reader.read(333, 0); !batch.isEmpty(); batch = reader.read(333, 0)) {
            assertTrue(batch.size() <= 333);
            got.addAll(batch);
        }
        assertEquals(IntStream.range(12_345, lines.size()).mapToObj(i -> rec(i, lines.get(i)))
                .collect(Collectors.toList()), got);
    }

    // ---- limits and errors

    @Test
    void lineLongerThanRecordBytesMaxFailsNamingPartitionOffsetAndLimit() throws Exception {
        int max = FileLogs.RECORD_BYTES_MAX;
        append("t", "0-7", "ok\n" + "x".repeat(max) + "\n" + "y".repeat(max + 1) + "\n");
        PartitionReader reader = open().reader("t", "0-7", 0);
        List<SourceRecord> records = reader.read(10, 0);
        assertEquals(2, records.size(), "the records before the long line come first");
        assertEquals(max, records.get(1).value().length, "a line of exactly recordBytesMax is a record");
        IOException e = assertThrows(IOException.class, () -> reader.read(10, 0));
        assertTrue(e.getMessage().contains("offset 2 of t/0-7") && e.getMessage().contains("" + max),
                e.getMessage());
    }

    @Test
    void partialLineAlreadyTooLongFailsWithoutWaitingForItsNewline() throws Exception {
        append("t", "0-0", "abcdefghijk");
        PartitionReader reader = open(4).reader("t", "0-0", 0);
        IOException e = assertThrows(IOException.class, () -> reader.read(1, 0));
        assertTrue(e.getMessage().contains("recordBytesMax=4"), e.getMessage());
    }

    @Test
    void skippedLinesAreNotBoundByTheLimit() throws Exception {
        append("t", "0-0", "much too long\nok\n");
        assertEquals(List.of(rec(1, "ok")), open(4).reader("t", "0-0", 1).read(10, 0));
    }

    @Test
    void idsThatCouldLeaveTheRootAreRejected() throws IOException {
        PartitionLogs logs = open();
        for (String topic : List.of("", ".", "..", "../etc", "a/b", "a\\b", "nul\0")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> logs.reader(topic, "0-0", 0), topic);
            assertTrue(e.getMessage().contains("'" + topic + "'"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> logs.latestOffset(topic, "0-0"), topic);
            assertThrows(IllegalArgumentException.class, () -> logs.earliestOffset(topic, "0-0"), topic);
        }
        for (String partition : List.of("", "0", "../0-0", "0-0/../../x", "a-1", "0-0.log", "-1-2", "0-1 ")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> logs.reader("t", partition, 0), partition);
            assertTrue(e.getMessage().contains("'" + partition + "'"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> logs.latestOffset("t", partition), partition);
            assertThrows(IllegalArgumentException.class, () -> logs.earliestOffset("t", partition), partition);
        }
        assertThrows(IllegalArgumentException.class, () -> logs.reader("t", "0-0", -1));
    }

    @Test
    void interruptWhileWaitingThrowsInterruptedException() throws Exception {
        PartitionReader reader = open().reader("t", "0-0", 0);
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        Thread fetcher = new Thread(() -> {
            try {
                reader.read(1, Long.MAX_VALUE); // "forever" must not overflow into "no wait"
                interrupted.complete(false);
            } catch (InterruptedException e) {
                interrupted.complete(true);
            } catch (Throwable e) {
                interrupted.completeExceptionally(e);
            }
        }, "fetcher");
        fetcher.start();
        awaitState(fetcher, Thread.State.TIMED_WAITING);
        fetcher.interrupt();
        assertTrue(interrupted.get(WAIT_MS, TimeUnit.MILLISECONDS));
        fetcher.join(WAIT_MS);
    }

    @Test
    void pendingInterruptIsReportedAndTheReaderStillWorksAfterwards() throws Exception {
        append("t", "0-0", "a\nb\n");
        PartitionReader reader = open().reader("t", "0-0", 0);
        assertEquals(List.of(rec(0, "a")), reader.read(1, 0));
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> reader.read(1, 0));
        assertFalse(Thread.interrupted(), "like Thread.sleep, throwing clears the interrupt");
        assertEquals(List.of(rec(1, "b")), reader.read(1, 0));
    }

    @Test
    void closingTheSourceStopsItsReaders() throws Exception {
        append("t", "0-0", "a\n");
        PartitionLogs logs = open();
        PartitionReader reader = logs.reader("t", "0-0", 0);
        assertEquals(1, reader.read(10, 0).size());
        logs.close();
        assertThrows(IOException.class, () -> reader.read(10, 0));
        assertThrows(IOException.class, () -> logs.reader("t", "0-0", 0));
        assertThrows(IOException.class, () -> logs.latestOffset("t", "0-0"));
        reader.close();
    }

    @Test
    void closedReaderRefusesToRead() throws Exception {
        PartitionReader reader = open().reader("t", "0-0", 0);
        reader.close();
        assertThrows(IOException.class, () -> reader.read(1, 0));
    }

    @Test
    void logThatShrinksIsAnError() throws Exception {
        append("t", "0-0", "abc\ndef\n");
        PartitionLogs logs = open();
        PartitionReader reader = logs.reader("t", "0-0", 0);
        assertEquals(2, reader.read(10, 0).size());
        assertEquals(2, logs.latestOffset("t", "0-0"));
        Files.writeString(log("t", "0-0"), "x\n");
        IOException e = assertThrows(IOException.class, () -> reader.read(10, 0));
        assertTrue(e.getMessage().contains("shrank"), e.getMessage());
        assertThrows(IOException.class, () -> logs.latestOffset("t", "0-0"));
    }

    // ---- helpers

    private PartitionLogs open() {
        return track(new FileSource().open(Map.of("root", root.toString())));
    }

    private PartitionLogs open(int recordBytesMax) {
        return track(new FileLogs(root, recordBytesMax));
    }

    private <T extends AutoCloseable> T track(T closeable) {
        opened.add(closeable);
        return closeable;
    }

    private Path log(String topic, String partition) {
        return root.resolve(topic).resolve(partition + ".log");
    }

    private void append(String topic, String partition, String text) {
        try {
            Files.createDirectories(root.resolve(topic));
            Files.write(log(topic, partition), text.getBytes(UTF_8), StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Waits on the reader itself (its waitMs), never on a sleep: returns as soon as {@code n} records came. */
    private static List<SourceRecord> readAtLeast(PartitionReader reader, int n) throws Exception {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        List<SourceRecord> got = new ArrayList<>();
        while (got.size() < n && System.nanoTime() < deadlineNs) {
            got.addAll(reader.read(n - got.size(), TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime())));
        }
        return got;
    }

    private static void awaitState(Thread thread, Thread.State state) {
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (thread.getState() != state) {
            if (System.nanoTime() > deadlineNs) {
                throw new AssertionError(thread.getName() + " never reached " + state + ", is " + thread.getState());
            }
            Thread.onSpinWait();
        }
    }

    private static SourceRecord rec(long offset, String value) {
        return new SourceRecord(offset, value.getBytes(UTF_8));
    }
}
