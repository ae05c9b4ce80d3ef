package shepherd.cli.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Appends records steadily to the file source's logs, {@code <root>/<topic>/<partition>.log}, one line
 * {@code "<partition>:<offset>"} per record (offset = line number, as the file source counts), so every delivery
 * can be checked against where it came from. Only this thread writes; the counts are read from any thread.
 */
final class Producer implements Runnable {
    /** Time between two rounds; every partition gets {@link #RECORDS_PER_ROUND} records per round. */
    static final long ROUND_MS = 50;
    static final int RECORDS_PER_ROUND = 1;

    private final Path root;
    private final String topic;
    /** topic/partition → records written. */
    private final Map<String, Long> produced = new ConcurrentHashMap<>();
    private final List<String> partitions = new ArrayList<>(); // guarded by this
    private volatile boolean running = true;
    private volatile Thread thread;

    Producer(Path root, String topic, List<String> partitionIds) {
        this.root = root;
        this.topic = topic;
        addPartitions(partitionIds);
    }

    /**
     * Creates the new partitions' (empty) logs before a coordinator can assign them, so no fetcher meets a missing
     * file, and includes them from the next round on.
     */
    synchronized void addPartitions(List<String> partitionIds) {
        try {
            Files.createDirectories(root.resolve(topic));
            for (String p : partitionIds) {
                Path log = root.resolve(topic).resolve(p + ".log");
                if (!Files.exists(log)) {
                    Files.createFile(log);
                }
                if (!partitions.contains(p)) {
                    partitions.add(p);
                    produced.put(topic + "/" + p, 0L);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the logs of " + partitionIds + " under " + root, e);
        }
    }

    void start() {
        Thread t = new Thread(this, "demo-producer");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    @Override
    public void run() {
        try {
            while (running) {
                round();
                Thread.sleep(ROUND_MS); // the producer's pace, not a wait for a condition
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One round: {@link #RECORDS_PER_ROUND} more records on every partition. */
    synchronized void round() {
        for (String p : partitions) {
            String key = topic + "/" + p;
            long from = produced.get(key);
            StringBuilder lines = new StringBuilder();
            for (long o = from; o < from + RECORDS_PER_ROUND; o++) {
                lines.append(p).append(':').append(o).append('\n');
            }
            try {
                Files.writeString(root.resolve(topic).resolve(p + ".log"), lines, StandardCharsets.UTF_8,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot append to " + key, e);
            }
            produced.put(key, from + RECORDS_PER_ROUND);
        }
    }

    /** Stops producing and waits for the last round to finish, so {@link #produced()} is final. */
    void stop() throws InterruptedException {
        running = false;
        Thread t = thread;
        if (t != null) {
            // No interrupt: it would close the file channel mid-append and could cut a record in half.
            t.join(5_000);
        }
    }

    /** topic/partition → records written so far. */
    Map<String, Long> produced() {
        return new TreeMap<>(produced);
    }

    long total() {
        return produced.values().stream().mapToLong(Long::longValue).sum();
    }

    synchronized int partitionCount() {
        return partitions.size();
    }
}
