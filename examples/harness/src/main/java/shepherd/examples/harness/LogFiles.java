package shepherd.examples.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Appends records to the {@code file} source's logs, {@code <root>/<topic>/<partition>.log}, one record a line and
 * offset = line number (docs/source-file.md): what {@code shepherd produce} does.
 */
public final class LogFiles {
    private LogFiles() {}

    /**
     * Appends {@code count} records {@code "<partition>:<offset>"} to a partition that holds {@code from} records,
     * so every value names where it was written and a test can tell a record from its duplicate's position.
     *
     * @return the values appended, in offset order
     */
    public static List<String> append(Path root, String topic, String partition, long from, int count) {
        List<String> values = new ArrayList<>();
        StringBuilder lines = new StringBuilder();
        for (long offset = from; offset < from + count; offset++) {
            String value = partition + ":" + offset;
            values.add(value);
            lines.append(value).append('\n');
        }
        try {
            Path dir = Files.createDirectories(root.resolve(topic));
            // Whole lines in one append, '\n' last: a reader never sees half a record (docs/source-file.md).
            Files.writeString(dir.resolve(partition + ".log"), lines, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + topic + "/" + partition + " under " + root, e);
        }
        return List.copyOf(values);
    }
}
