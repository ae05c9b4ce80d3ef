package shepherd.source.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import shepherd.consumer.PartitionReader;
import shepherd.consumer.SourceRecord;

/**
 * Follows one {@code <partition>.log} from a line number, like {@code tail -f}: it scans forward once, keeping its
 * byte position, the bytes it has read but not yet scanned and the partial line it has seen so far, so each read
 * costs only the bytes appended since the previous one. The file need not exist yet, and the start offset may be
 * past its end: lines before it are counted, not kept, as they arrive.
 *
 * <p>A log gives no signal when it grows, so an idle reader polls: it tries to read, and sleeps {@link #POLL_MS}
 * (never past the caller's wait) between tries. One fetcher thread owns it.
 */
final class LineReader implements PartitionReader {
    /** Between tries at the end of the log: short enough for low latency, long enough to cost nothing when idle. */
    static final long POLL_MS = 10;

    private final FileLogs logs;
    private final String topic;
    private final String partition;
    private final Path log;
    private final long startOffset;
    private final int recordBytesMax;

    /** Read from the file but not scanned yet, between {@code position()} and {@code limit()}. */
    private final ByteBuffer chunk = ByteBuffer.allocate(FileLogs.SCAN_BUFFER_BYTES).limit(0);
    /** Null until the file exists, and again after an interrupt closed it. Volatile for {@link #release()}. */
    private volatile FileChannel channel;
    /** Where the next channel read starts: just after the last byte in {@link #chunk}. */
    private long filePosition;
    /** The offset of the line being scanned: the number of {@code '\n'} before it. */
    private long lineOffset;
    /** The scanned bytes of that line so far (only from {@link #startOffset} on; earlier lines are skipped). */
    private byte[] line = new byte[256];
    private int lineBytes;
    private volatile boolean closed;

    LineReader(FileLogs logs, String topic, String partition, Path log, long startOffset, int recordBytesMax) {
        this.logs = logs;
        this.topic = topic;
        this.partition = partition;
        this.log = log;
        this.startOffset = startOffset;
        this.recordBytesMax = recordBytesMax;
    }

    @Override
    public List<SourceRecord> read(int maxRecords, long waitMs) throws IOException, InterruptedException {
        if (maxRecords < 1 || waitMs < 0) {
            throw new IllegalArgumentException("need maxRecords >= 1 and waitMs >= 0, got " + maxRecords + " and "
                    + waitMs);
        }
        long startNs = System.nanoTime();
        long waitNs = TimeUnit.MILLISECONDS.toNanos(waitMs); // saturates, so "wait forever" cannot overflow
        while (true) {
            throwIfInterrupted();
            throwIfClosed();
            List<SourceRecord> records = scan(maxRecords);
            long remainingNs = waitNs - (System.nanoTime() - startNs);
            if (!records.isEmpty() || remainingNs <= 0) {
                return records;
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(remainingNs, TimeUnit.MILLISECONDS.toNanos(POLL_MS)));
        }
    }

    /** Every complete line available now, up to {@code maxRecords}; reads the file only when the chunk is used up. */
    private List<SourceRecord> scan(int maxRecords) throws IOException, InterruptedException {
        List<SourceRecord> records = new ArrayList<>();
        while (records.size() < maxRecords && (chunk.hasRemaining() || fillAfter(records))) {
            byte[] bytes = chunk.array();
            int from = chunk.position();
            int newline = indexOfNewline(bytes, from, chunk.limit());
            int to = newline < 0 ? chunk.limit() : newline;
            if (lineOffset >= startOffset) {
                if (lineBytes + (to - from) > recordBytesMax) {
                    // Hand over what came before the long line first; the next read fails at once on it.
                    if (!records.isEmpty()) {
                        return records;
                    }
                    throw tooLong();
                }
                append(bytes, from, to);
            }
            chunk.position(newline < 0 ? to : newline + 1);
            if (newline >= 0) {
                if (lineOffset >= startOffset) {
                    records.add(new SourceRecord(lineOffset, Arrays.copyOf(line, lineBytes)));
                }
                lineOffset++;
                lineBytes = 0;
            }
        }
        return records;
    }

    /**
     * {@link #fill()}, except that a failure after some records is reported by the next read instead: this reader
     * has already moved past them, so throwing now would lose them. The failure recurs (the interrupt is set again,
     * and a failed fill changes nothing), so nothing is hidden.
     */
    private boolean fillAfter(List<SourceRecord> records) throws IOException, InterruptedException {
        try {
            return fill();
        } catch (InterruptedException e) {
            if (records.isEmpty()) {
                throw e;
            }
            Thread.currentThread().interrupt();
            return false;
        } catch (IOException e) {
            if (records.isEmpty()) {
                throw e;
            }
            return false;
        }
    }

    /** Reads the next bytes of the file into the (used up) chunk; false at the end or while it does not exist. */
    private boolean fill() throws IOException, InterruptedException {
        FileChannel in = channel;
        if (in == null) {
            if ((in = open()) == null) {
                return false;
            }
            channel = in;
            // Publish, then check: a close() on another thread either saw this channel or is seen here.
            if (closed || logs.isClosed()) {
                in.close();
                throwIfClosed();
            }
        }
        chunk.clear();
        int n = -1;
        try {
            n = in.read(chunk, filePosition);
        } catch (ClosedByInterruptException e) {
            // FileChannel closes itself when its thread is interrupted mid-read; reopen at filePosition next time.
            channel = null;
            Thread.interrupted();
            InterruptedException interrupted = new InterruptedException("interrupted reading " + topic + "/"
                    + partition);
            interrupted.initCause(e);
            throw interrupted;
        } finally {
            chunk.flip();
            if (n <= 0) {
                chunk.limit(0);
            }
        }
        if (n <= 0) {
            throwIfShrunk(in);
            return false;
        }
        filePosition += n;
        return true;
    }

    private FileChannel open() throws IOException {
        if (!Files.exists(log)) {
            return null;
        }
        try {
            return FileChannel.open(log, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** A log that shrinks broke the append-only promise: offsets already handed out may now name other lines. */
    private void throwIfShrunk(FileChannel in) throws IOException {
        long size = in.size();
        if (size < filePosition) {
            throw new IOException(log + " (" + topic + "/" + partition + ") shrank from " + filePosition + " to "
                    + size + " bytes; the file source needs append-only logs");
        }
    }

    private void append(byte[] bytes, int from, int to) {
        int length = to - from;
        if (lineBytes + length > line.length) {
            line = Arrays.copyOf(line, Math.min(recordBytesMax, Math.max(lineBytes + length, line.length * 2)));
        }
        System.arraycopy(bytes, from, line, lineBytes, length);
        lineBytes += length;
    }

    private IOException tooLong() {
        return new IOException("record at offset " + lineOffset + " of " + topic + "/" + partition + " (" + log
                + ") is longer than recordBytesMax=" + recordBytesMax + " bytes");
    }

    private static int indexOfNewline(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static void throwIfInterrupted() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted while reading");
        }
    }

    private void throwIfClosed() throws IOException {
        if (closed) {
            throw new IOException("reader of " + topic + "/" + partition + " is closed");
        }
        logs.throwIfClosed();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        logs.forget(this);
        release();
    }

    /**
     * Closes the file, from the owner or from {@link FileLogs#close()} on another thread; the owner's next read
     * fails (a read in progress with {@link java.nio.channels.AsynchronousCloseException}). Both paths set a closed
     * flag first and {@link #fill()} checks it after publishing a new channel, so none stays open behind them.
     */
    void release() throws IOException {
        FileChannel open = channel;
        if (open != null) {
            open.close();
        }
    }
}
