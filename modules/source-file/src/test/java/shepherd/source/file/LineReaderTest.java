package shepherd.source.file;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import shepherd.consumer.PartitionReader;
import shepherd.consumer.SourceRecord;

class LineReaderTest {

    /**
     * However a writer splits its appends (mid-line, several lines at once) and however the reader batches, the
     * reader hands over exactly the complete lines from its start offset, in order, each once, and never the
     * unterminated tail; and latestOffset always counts exactly the complete lines.
     */
    @Property(tries = 200)
    void everyCompleteLineIsReadOnceInOrder(
            @ForAll @Size(max = 40) List<@StringLength(max = 300) @CharRange(from = 'a', to = 'c') @Chars({'\n', '\r'})
                    String> pieces,
            @ForAll @IntRange(min = 1, max = 7) int maxRecords,
            @ForAll @IntRange(min = 0, max = 30) int startOffset) throws Exception {
        Path root = Files.createTempDirectory("file-source");
        try (FileLogs logs = new FileLogs(root, FileLogs.RECORD_BYTES_MAX);
             PartitionReader reader = logs.reader("t", "0-0", startOffset)) {
            Files.createDirectories(root.resolve("t"));
            Path log = root.resolve("t").resolve("0-0.log");
            StringBuilder written = new StringBuilder();
            List<SourceRecord> read = new ArrayList<>();
            for (String piece : pieces) {
                Files.writeString(log, piece, UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                written.append(piece);
                List<SourceRecord> batch = reader.read(maxRecords, 0);
                assertTrue(batch.size() <= maxRecords);
                read.addAll(batch);
                assertEquals(completeLines(written).size(), logs.latestOffset("t", "0-0"));
            }
            for (List<SourceRecord> b = reader.read(maxRecords, 0); !b.isEmpty(); b = reader.read(maxRecords, 0)) {
                read.addAll(b);
            }
            List<String> lines = completeLines(written);
            List<String> expected = new ArrayList<>();
            for (int i = startOffset; i < lines.size(); i++) {
                expected.add(i + ":" + lines.get(i));
            }
            assertEquals(expected, read.stream().map(r -> r.offset() + ":" + new String(r.value(), UTF_8)).toList());
        } finally {
            deleteTree(root);
        }
    }

    private static List<String> completeLines(CharSequence text) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                lines.add(text.subSequence(start, i).toString());
                start = i + 1;
            }
        }
        return lines;
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
