package shepherd.chaos.run;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import shepherd.chaos.history.Entry;
import shepherd.chaos.history.HistoryCodec;

/**
 * Follows the consumer workers' history files while the run goes on, reading only what was appended since the last
 * look: what each consumer is fetching now, and which records were delivered. The run waits on it ("every
 * partition fetched by its owner", "every record delivered"); the checkers read the complete files at the end.
 */
public final class Observer {
    private final Map<Path, Long> positions = new HashMap<>();
    private final Map<Path, StringBuilder> partial = new HashMap<>();
    /** partition → consumer → generation of its open fetch. */
    private final Map<String, Map<String, Integer>> open = new TreeMap<>();
    private final Map<String, BitSet> delivered = new HashMap<>();
    private final List<Entry> fetchEvents = new ArrayList<>();
    private int undecodable;

    /** Reads what was appended to {@code files} since the last call. */
    public synchronized void poll(List<Path> files) {
        for (Path f : files) {
            if (Files.exists(f)) {
                readNew(f);
            }
        }
    }

    private void readNew(Path file) {
        long pos = positions.getOrDefault(file, 0L);
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            if (length <= pos) {
                return;
            }
            byte[] buf = new byte[(int) Math.min(length - pos, 16 << 20)];
            in.seek(pos);
            in.readFully(buf);
            positions.put(file, pos + buf.length);
            StringBuilder sb = partial.computeIfAbsent(file, k -> new StringBuilder());
            sb.append(new String(buf, StandardCharsets.UTF_8));
            int nl;
            while ((nl = sb.indexOf("\n")) >= 0) {
                String line = sb.substring(0, nl);
                sb.delete(0, nl + 1);
                if (!line.isBlank()) {
                    apply(line);
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot follow " + file, e);
        }
    }

    private void apply(String line) {
        Entry e;
        try {
            e = HistoryCodec.decode(line);
        } catch (RuntimeException bad) {
            undecodable++;
            return;
        }
        if (e instanceof Entry.FetchStarted s) {
            open.computeIfAbsent(s.partition(), k -> new TreeMap<>()).put(s.consumer(), s.generation());
            fetchEvents.add(e);
        } else if (e instanceof Entry.FetchStopped s) {
            open.computeIfAbsent(s.partition(), k -> new TreeMap<>()).remove(s.consumer());
            fetchEvents.add(e);
        } else if (e instanceof Entry.Delivered d) {
            delivered.computeIfAbsent(d.partition(), k -> new BitSet()).set((int) d.offset());
        }
    }

    /** A consumer was killed: its fetches end (its file will say nothing more). */
    public synchronized void died(String consumer) {
        open.values().forEach(m -> m.remove(consumer));
    }

    /** partition → consumers fetching it now. */
    public synchronized Map<String, List<String>> fetching() {
        Map<String, List<String>> out = new TreeMap<>();
        open.forEach((p, m) -> out.put(p, List.copyOf(m.keySet())));
        return out;
    }

    /** Fetch starts and stops seen so far, in file order per consumer. */
    public synchronized List<Entry> fetchEvents() {
        return List.copyOf(fetchEvents);
    }

    /** Partitions with a produced record ({@code counts}: partition → records produced) never delivered. */
    public synchronized Map<String, Integer> undelivered(Map<String, Long> counts) {
        Map<String, Integer> out = new TreeMap<>();
        counts.forEach((p, n) -> {
            BitSet got = delivered.getOrDefault(p, new BitSet());
            int missing = (int) (n - got.get(0, (int) (long) n).cardinality());
            if (missing > 0) {
                out.put(p, missing);
            }
        });
        return out;
    }

    public synchronized int undecodable() {
        return undecodable;
    }
}
