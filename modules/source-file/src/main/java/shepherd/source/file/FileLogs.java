package shepherd.source.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import shepherd.consumer.PartitionLogs;
import shepherd.consumer.PartitionReader;

/**
 * The logs under one root: {@code <root>/<topic>/<partition>.log}, one record per {@code '\n'}-terminated line,
 * offset = line number. Lines are only ever appended, so the earliest offset is always 0 and the latest is the
 * number of complete lines; a trailing line without its {@code '\n'} is a writer mid-append, not a record yet.
 *
 * <p>Thread-safe: the only shared state is the closed flag, the set of open readers and a cache of line counts
 * whose entries are immutable and only ever replaced by longer prefixes of the same file.
 */
final class FileLogs implements PartitionLogs {
    /** The longest line (without its {@code '\n'}) taken as a record; a reader meeting a longer one fails. */
    static final int RECORD_BYTES_MAX = 1 << 20;

    static final int SCAN_BUFFER_BYTES = 64 << 10;

    /** Partition ids are {@code "<brokerId>-<n>"} (DESIGN §1); nothing else may reach a file name. */
    private static final Pattern PARTITION_ID = Pattern.compile("\\d+-\\d+");

    private final Path root;
    private final int recordBytesMax;
    private final Set<LineReader> readers = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<Path, LineCount> lineCounts = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** How many {@code '\n'} the first {@code bytes} bytes of a log hold; lets latestOffset scan only new bytes. */
    private record LineCount(long bytes, long lines) {
        static final LineCount NONE = new LineCount(0, 0);
    }

    FileLogs(Path root, int recordBytesMax) {
        if (recordBytesMax < 1) {
            throw new IllegalArgumentException("recordBytesMax must be positive, got " + recordBytesMax);
        }
        this.root = Objects.requireNonNull(root, "root");
        this.recordBytesMax = recordBytesMax;
    }

    @Override
    public long earliestOffset(String topic, String partition) throws IOException {
        logPath(topic, partition);
        throwIfClosed();
        return 0;
    }

    @Override
    public long latestOffset(String topic, String partition) throws IOException {
        Path log = logPath(topic, partition);
        throwIfClosed();
        LineCount counted = countLines(log, lineCounts.getOrDefault(log, LineCount.NONE));
        lineCounts.merge(log, counted, (a, b) -> a.bytes() >= b.bytes() ? a : b);
        return counted.lines();
    }

    @Override
    public PartitionReader reader(String topic, String partition, long offset) throws IOException {
        Path log = logPath(topic, partition);
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative, got " + offset + " for " + topic + "/"
                    + partition);
        }
        throwIfClosed();
        LineReader reader = new LineReader(this, topic, partition, log, offset, recordBytesMax);
        readers.add(reader);
        return reader;
    }

    /** Closes every reader still open too: their fetcher threads see an IOException at their next read. */
    @Override
    public void close() throws IOException {
        closed = true;
        IOException failure = null;
        for (LineReader reader : readers) {
            try {
                reader.release();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    boolean isClosed() {
        return closed;
    }

    void forget(LineReader reader) {
        readers.remove(reader);
    }

    /**
     * IOException rather than IllegalStateException: a fetcher thread may race the consumer's shutdown, and an
     * IOException is what it already handles (log, retry, then notice it is being closed).
     */
    void throwIfClosed() throws IOException {
        if (closed) {
            throw new IOException("file source at " + root + " is closed");
        }
    }

    Path logPath(String topic, String partition) {
        throwIfInvalidTopic(topic);
        throwIfInvalidPartition(partition);
        return root.resolve(topic).resolve(partition + ".log");
    }

    /** Ids become path elements: anything that could leave the topic's directory under root is refused. */
    private static void throwIfInvalidTopic(String topic) {
        Objects.requireNonNull(topic, "topic");
        if (topic.isEmpty() || topic.equals(".") || topic.equals("..") || topic.indexOf('/') >= 0
                || topic.indexOf('\\') >= 0 || topic.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("invalid topic '" + topic + "' for the file source: it must be a "
                    + "single path element (not empty, '.' or '..', without '/', '\\' or NUL)");
        }
    }

    private static void throwIfInvalidPartition(String partition) {
        Objects.requireNonNull(partition, "partition");
        if (!PARTITION_ID.matcher(partition).matches()) {
            throw new IllegalArgumentException("invalid partition id '" + partition + "' for the file source: "
                    + "expected <brokerId>-<n>, e.g. 0-3");
        }
    }

    /** Counts the {@code '\n'} after {@code known}; a missing file is an empty log (it may appear later). */
    private static LineCount countLines(Path log, LineCount known) throws IOException {
        try (FileChannel channel = FileChannel.open(log, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < known.bytes()) {
                throw new IOException(log + " shrank from " + known.bytes() + " to " + size
                        + " bytes; the file source needs append-only logs");
            }
            long unread = size - known.bytes();
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.max(1, Math.min(SCAN_BUFFER_BYTES, unread)));
            long position = known.bytes();
            long lines = known.lines();
            while (position < size) {
                buffer.clear();
                int n = channel.read(buffer, position);
                if (n < 0) {
                    break;
                }
                lines += count(buffer.array(), 0, n);
                position += n;
            }
            return new LineCount(position, lines);
        } catch (NoSuchFileException e) {
            if (known.bytes() > 0) {
                throw new IOException(log + " disappeared after " + known.lines() + " lines; the file source needs "
                        + "append-only logs", e);
            }
            return LineCount.NONE;
        }
    }

    private static long count(byte[] bytes, int from, int to) {
        long newlines = 0;
        for (int i = from; i < to; i++) {
            if (bytes[i] == '\n') {
                newlines++;
            }
        }
        return newlines;
    }
}
