package shepherd.chaos.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import shepherd.chaos.history.Entry;
import shepherd.chaos.history.History;

/**
 * The records of a run: one line appended to every partition's log of the {@code file} source each tick, each
 * recorded as {@link Entry.Produced} once it is whole on disk (offset = its line number). The partitions are read
 * from a supplier each tick, so partitions added during the run are written too.
 */
public final class Workload implements AutoCloseable {
    private static final long TICK_MS = 25;
    private final Path root;
    private final String topic;
    private final Supplier<List<String>> partitions;
    private final History history;
    private final Map<String, Long> next = new java.util.concurrent.ConcurrentSkipListMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile RuntimeException failure;

    public Workload(Path root, String topic, Supplier<List<String>> partitions, History history) {
        this.root = root;
        this.topic = topic;
        this.partitions = partitions;
        this.history = history;
        this.thread = new Thread(this::run, "workload-" + topic);
        this.thread.setDaemon(true);
    }

    public Workload start() {
        thread.start();
        return this;
    }

    private void run() {
        try {
            while (running) {
                for (String p : partitions.get()) {
                    append(p);
                }
                Thread.sleep(TICK_MS); // the production rate, not a wait for a condition
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    private void append(String partition) {
        long offset = next.getOrDefault(partition, 0L);
        Path log = root.resolve(topic).resolve(partition + ".log");
        try {
            Files.createDirectories(log.getParent());
            Files.writeString(log, topic + "/" + partition + "@" + offset + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + log, e);
        }
        next.put(partition, offset + 1);
        history.add(new Entry.Produced(System.nanoTime(), topic, partition, offset));
    }

    /** partition → records produced into it so far. */
    public Map<String, Long> counts() {
        return new TreeMap<>(next);
    }

    /** Stops producing; what was produced stays to be delivered. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw new IllegalStateException("the workload failed", failure);
        }
    }
}
