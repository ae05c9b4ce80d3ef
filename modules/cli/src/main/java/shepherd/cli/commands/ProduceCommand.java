package shepherd.cli.commands;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import shepherd.cli.admin.AdminException;
import shepherd.cli.admin.Names;
import shepherd.cli.admin.ZkAdmin;
import shepherd.coordination.assign.InvalidIdException;
import shepherd.coordination.assign.PartitionId;

/**
 * {@code shepherd produce}: appends records to the {@code file} source, {@code <root>/<topic>/<partition>.log}, one
 * line per record (docs/source-file.md). Without {@code --partition} the records go round-robin over the topic's
 * partitions, read from ZooKeeper or given with {@code --partitions}, starting at a random one so that repeated
 * small runs spread too.
 *
 * <p>Whole lines only: each write to a log is a run of complete lines, {@code '\n'} last, so that a consumer (and
 * another producer appending with {@code O_APPEND}) never sees a record cut in two. A value cannot contain
 * {@code '\n'} (it would be two records) nor exceed the source's 1 MiB line limit (it would stop the partition).
 */
@Command(name = "produce", mixinStandardHelpOptions = true,
        description = {"Append records to the file source: <root>/<topic>/<partition>.log, one line per record.",
            "Values are --count generated values \"<prefix>-<i>\", or the lines of standard input."})
public final class ProduceCommand extends AdminCommand {
    /** The file source's longest record ({@code FileLogs.RECORD_BYTES_MAX}, docs/source-file.md). */
    static final int RECORD_BYTES_MAX = 1 << 20;
    /** Lines are gathered up to this many bytes per write. */
    private static final int WRITE_BYTES_MAX = 64 << 10;

    @Option(names = "--root", required = true, paramLabel = "DIR",
            description = "Root directory of the file source (it must exist; the topic directory is created).")
    Path root;

    @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic to append to.")
    String topic;

    @ArgGroup(exclusive = true)
    Placement placement = new Placement();

    static final class Placement {
        @Option(names = "--partition", paramLabel = "ID",
                description = "Append every record to this partition (\"<brokerId>-<n>\").")
        String partition;

        @Option(names = "--partitions", split = ",", paramLabel = "ID",
                description = "Spread round-robin over these partitions, e.g. 1-0,1-1,2-0.")
        List<String> partitions;

        @Option(names = "--zookeeper", paramLabel = "CONNECT",
                description = "Spread round-robin over the topic's partitions as registered in this ZooKeeper"
                        + " (host:port[,...][/chroot]).")
        String zookeeper;
    }

    @Option(names = "--count", paramLabel = "N",
            description = "Records to append: N generated values with --prefix (default 1), or at most N lines of"
                    + " standard input (default: all).")
    Long count;

    @Option(names = "--prefix", paramLabel = "S",
            description = "Generate the values \"S-0\" .. \"S-(N-1)\" instead of reading standard input.")
    String prefix;

    private InputStream input = System.in;

    /** Reads the records from {@code in} instead of standard input (tests, embedding). */
    public ProduceCommand withInput(InputStream in) {
        this.input = in;
        return this;
    }

    @Override
    int execute() throws IOException {
        Names.invalidId("topic", topic).ifPresent(reason -> {
            throw new UsageException("--topic: " + reason);
        });
        if (!Files.isDirectory(root)) {
            throw new UsageException("--root " + root + " is not an existing directory");
        }
        if (count != null && count < 0) {
            throw new UsageException("--count must be >= 0, got " + count);
        }
        if (prefix != null && (prefix.indexOf('\n') >= 0 || prefix.indexOf('\r') >= 0)) {
            throw new UsageException("--prefix must not contain a line break (a record is one line), got '"
                    + prefix.replace("\n", "\\n").replace("\r", "\\r") + "'");
        }
        List<String> targets = targets();
        Map<String, Long> written = new LinkedHashMap<>();
        targets.forEach(p -> written.put(p, 0L));
        Path dir = Files.createDirectories(root.resolve(topic));
        try (Appender appender = new Appender(dir, targets)) {
            int next = targets.size() == 1 ? 0 : ThreadLocalRandom.current().nextInt(targets.size());
            long n = 0;
            for (byte[] value : (Iterable<byte[]>) () -> values()) {
                String partition = targets.get(next);
                appender.append(partition, value, n);
                written.merge(partition, 1L, Long::sum);
                next = (next + 1) % targets.size();
                n++;
            }
            appender.flush();
            report(dir, written, n);
        } catch (UncheckedIOException e) {
            throw new AdminException(e.getMessage() + ": " + e.getCause(), e);
        }
        return EXIT_OK;
    }

    private void report(Path dir, Map<String, Long> written, long total) {
        out().printf("appended %d record%s to topic %s%n", total, total == 1 ? "" : "s", topic);
        written.forEach((p, k) -> {
            if (k > 0) {
                out().printf("  %s: %d -> %s%n", p, k, dir.resolve(p + ".log"));
            }
        });
    }

    /** The partitions to append to, in round-robin order. */
    private List<String> targets() {
        if (placement.partition != null) {
            return List.of(partitionId("--partition", placement.partition));
        }
        if (placement.partitions != null) {
            List<String> ids = new ArrayList<>();
            placement.partitions.stream().map(p -> partitionId("--partitions", p)).distinct().forEach(ids::add);
            return List.copyOf(ids);
        }
        if (placement.zookeeper == null) {
            throw new UsageException("say where the records go: --partition ID, --partitions ID,ID... or"
                    + " --zookeeper CONNECT (the topic's partitions)");
        }
        try (ZkAdmin zk = openZooKeeper(placement.zookeeper)) {
            List<String> ids = new ArrayList<>();
            zk.topicPartitions(topic).orElseThrow(() -> new AdminException("topic '" + topic
                    + "' does not exist in ZooKeeper " + placement.zookeeper + " (topics: " + zk.topics() + ")"))
                    .forEach((id, k) -> {
                        for (int p = 0; p < k; p++) {
                            ids.add(new PartitionId(id, p).toString());
                        }
                    });
            if (ids.isEmpty()) {
                throw new AdminException("topic '" + topic + "' has no partitions");
            }
            return List.copyOf(ids);
        }
    }

    private static String partitionId(String option, String text) {
        try {
            return PartitionId.parse(text.trim()).toString();
        } catch (InvalidIdException e) {
            throw new UsageException(option + ": " + e.getMessage());
        }
    }

    /** The values to append: generated from the prefix, or the lines of the input (a last line without '\n' too). */
    private java.util.Iterator<byte[]> values() {
        if (prefix != null) {
            long n = count == null ? 1 : count;
            return new java.util.Iterator<>() {
                long i;

                @Override
                public boolean hasNext() {
                    return i < n;
                }

                @Override
                public byte[] next() {
                    return (prefix + "-" + i++).getBytes(StandardCharsets.UTF_8);
                }
            };
        }
        return new LineIterator(new BufferedInputStream(input), count == null ? Long.MAX_VALUE : count);
    }

    /** Lines split on {@code '\n'} only: a {@code '\r'} stays in the value, as the file source keeps it. */
    private static final class LineIterator implements java.util.Iterator<byte[]> {
        private final InputStream in;
        private final long max;
        private long returned;
        private byte[] next;
        private boolean done;

        LineIterator(InputStream in, long max) {
            this.in = in;
            this.max = max;
        }

        @Override
        public boolean hasNext() {
            if (next == null && !done) {
                next = returned < max ? readLine() : null;
                done = next == null;
            }
            return next != null;
        }

        @Override
        public byte[] next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            byte[] line = next;
            next = null;
            returned++;
            return line;
        }

        private byte[] readLine() {
            try {
                ByteArrayOutputStream line = new ByteArrayOutputStream();
                int b;
                while ((b = in.read()) >= 0 && b != '\n') {
                    line.write(b);
                    if (line.size() > RECORD_BYTES_MAX) {
                        throw new AdminException("line " + (returned + 1) + " of the input is longer than the file"
                                + " source's record limit of " + RECORD_BYTES_MAX + " bytes (the lines before it are appended)");
                    }
                }
                return b < 0 && line.size() == 0 ? null : line.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException("reading standard input", e);
            }
        }
    }

    /** One append-mode channel per partition, fed whole lines, written in runs of at most 64 KiB. */
    private static final class Appender implements AutoCloseable {
        private final Path dir;
        private final Map<String, FileChannel> channels = new LinkedHashMap<>();
        private final Map<String, ByteArrayOutputStream> pending = new LinkedHashMap<>();

        Appender(Path dir, List<String> partitions) {
            this.dir = dir;
            partitions.forEach(p -> pending.put(p, new ByteArrayOutputStream()));
        }

        void append(String partition, byte[] value, long index) {
            if (value.length > RECORD_BYTES_MAX) {
                throw new AdminException("record " + index + " is " + value.length + " bytes, more than the file"
                        + " source's record limit of " + RECORD_BYTES_MAX);
            }
            for (byte b : value) {
                if (b == '\n') {
                    throw new AdminException("record " + index + " contains a newline (a record is one line)");
                }
            }
            ByteArrayOutputStream buffer = pending.get(partition);
            if (buffer.size() + value.length + 1 > WRITE_BYTES_MAX) {
                write(partition, buffer);
            }
            buffer.write(value, 0, value.length);
            buffer.write('\n');
        }

        void flush() {
            pending.forEach(this::write);
        }

        private void write(String partition, ByteArrayOutputStream buffer) {
            if (buffer.size() == 0) {
                return;
            }
            try {
                FileChannel channel = channels.get(partition);
                if (channel == null) {
                    channel = FileChannel.open(dir.resolve(partition + ".log"), StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE, StandardOpenOption.APPEND);
                    channels.put(partition, channel);
                }
                ByteBuffer bytes = ByteBuffer.wrap(buffer.toByteArray());
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                buffer.reset();
            } catch (IOException e) {
                throw new UncheckedIOException("appending to " + dir.resolve(partition + ".log"), e);
            }
        }

        /** Writes what is pending, so the records before a refused one are appended, then closes the logs. */
        @Override
        public void close() throws IOException {
            flush();
            IOException failure = null;
            for (FileChannel c : channels.values()) {
                try {
                    c.close();
                } catch (IOException e) {
                    failure = failure == null ? e : failure;
                }
            }
            if (failure != null) {
                throw failure;
            }
        }
    }
}
