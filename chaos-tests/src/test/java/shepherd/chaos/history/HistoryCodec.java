package shepherd.chaos.history;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Histories on disk: one JSON object a line, {@code {"type":"FetchStarted", ...the record's fields}}. Every process
 * of a run (consumer workers, the test) appends its own file; the run merges them. A line that does not decode —
 * the last line of a process killed in the middle of writing it — is counted, never fatal.
 */
public final class HistoryCodec {
    private static final Gson GSON = new Gson();
    private static final Map<String, Class<?>> TYPES = Arrays.stream(Entry.class.getPermittedSubclasses())
            .collect(Collectors.toMap(Class::getSimpleName, Function.identity()));

    private HistoryCodec() {}

    /** One line, without its newline. */
    public static String encode(Entry entry) {
        JsonObject json = GSON.toJsonTree(entry).getAsJsonObject();
        json.addProperty("type", entry.getClass().getSimpleName());
        return json.toString();
    }

    public static Entry decode(String line) {
        JsonObject json = JsonParser.parseString(line).getAsJsonObject();
        Class<?> type = TYPES.get(json.has("type") ? json.get("type").getAsString() : "");
        if (type == null) {
            throw new JsonParseException("unknown entry type in: " + line);
        }
        json.remove("type");
        return (Entry) GSON.fromJson(json, type);
    }

    /** Appends one entry and flushes: a SIGKILL loses at most the line being written. */
    public static void append(Writer out, Entry entry) throws IOException {
        out.write(encode(entry));
        out.write('\n');
        out.flush();
    }

    /** The entries of a file and how many of its lines did not decode. */
    public record Read(List<Entry> entries, int undecodable) {}

    public static Read read(Path file) {
        List<Entry> entries = new ArrayList<>();
        int bad = 0;
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                try {
                    entries.add(decode(line));
                } catch (RuntimeException e) {
                    bad++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read history " + file, e);
        }
        return new Read(entries, bad);
    }

    public static void write(Path file, List<Entry> entries) {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (Entry e : entries) {
                out.write(encode(e));
                out.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write history " + file, e);
        }
    }
}
