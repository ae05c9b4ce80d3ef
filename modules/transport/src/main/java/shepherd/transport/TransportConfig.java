package shepherd.transport;

import shepherd.protocol.FrameCodec;

/**
 * The limits of a {@link TransportServer} or {@link TransportClient}; every one is a bound, and going past it is a
 * typed rejection, never silent growth (CONVENTIONS 7). Units are the last word of each name.
 *
 * @param frameBytesMax                 largest frame accepted or sent, size prefix included, as
 *                                      {@link FrameCodec#frameBytesMax()} counts it; a bigger inbound frame is
 *                                      answered INVALID_REQUEST (when it is a request) and the connection closed;
 *                                      at least {@link FrameCodec#FRAME_BYTES_MAX_MIN}
 * @param requestTimeoutMs              how long {@link Connection#request} waits for the response before failing
 *                                      with {@link RequestTimeoutException}
 * @param pendingRequestsMax            per connection and per direction: requests we sent that await a response
 *                                      ({@link TooManyPendingRequestsException} beyond it), and requests we received
 *                                      that await our response (we stop reading the peer at it)
 * @param connectTimeoutMs              how long {@link TransportClient#connect} may take
 * @param writeBufferHighWaterMarkBytes a connection whose unsent bytes exceed this becomes unwritable: new requests
 *                                      fail with {@link WriteBufferFullException} and we stop reading the peer
 * @param writeBufferLowWaterMarkBytes  unsent bytes below which an unwritable connection becomes writable again
 * @param ioThreads                     event-loop threads of the server or client (each connection lives on one)
 * @param closeTimeoutMs                how long a graceful close waits for unsent bytes to drain before it forces
 *                                      the socket shut, and how long {@code close()} of a server or client waits
 */
public record TransportConfig(
        int frameBytesMax,
        long requestTimeoutMs,
        int pendingRequestsMax,
        long connectTimeoutMs,
        int writeBufferHighWaterMarkBytes,
        int writeBufferLowWaterMarkBytes,
        int ioThreads,
        long closeTimeoutMs) {

    public static final long REQUEST_TIMEOUT_MS_DEFAULT = 10_000;
    public static final int PENDING_REQUESTS_MAX_DEFAULT = 1_024;
    public static final long CONNECT_TIMEOUT_MS_DEFAULT = 5_000;
    public static final int WRITE_BUFFER_HIGH_WATER_MARK_BYTES_DEFAULT = 256 * 1024;
    public static final int WRITE_BUFFER_LOW_WATER_MARK_BYTES_DEFAULT = 128 * 1024;
    public static final long CLOSE_TIMEOUT_MS_DEFAULT = 5_000;

    public TransportConfig {
        requireAtLeast("frameBytesMax", frameBytesMax, FrameCodec.FRAME_BYTES_MAX_MIN);
        requirePositive("requestTimeoutMs", requestTimeoutMs);
        requirePositive("pendingRequestsMax", pendingRequestsMax);
        requirePositive("connectTimeoutMs", connectTimeoutMs);
        if (connectTimeoutMs > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "connectTimeoutMs must be at most " + Integer.MAX_VALUE + ", was " + connectTimeoutMs);
        }
        requirePositive("writeBufferLowWaterMarkBytes", writeBufferLowWaterMarkBytes);
        if (writeBufferHighWaterMarkBytes < writeBufferLowWaterMarkBytes) {
            throw new IllegalArgumentException("writeBufferHighWaterMarkBytes must be >= writeBufferLowWaterMarkBytes ("
                    + writeBufferLowWaterMarkBytes + "), was " + writeBufferHighWaterMarkBytes);
        }
        requirePositive("ioThreads", ioThreads);
        requirePositive("closeTimeoutMs", closeTimeoutMs);
    }

    /**
     * The defaults: 1 MiB frames, 10 s request timeout, 1,024 pending requests, 5 s connect timeout, write-buffer
     * water marks 256/128 KiB, one I/O thread per core (at most 4: each loop serves thousands of connections),
     * 5 s close timeout.
     */
    public static TransportConfig defaults() {
        return new TransportConfig(
                FrameCodec.DEFAULT_FRAME_BYTES_MAX,
                REQUEST_TIMEOUT_MS_DEFAULT,
                PENDING_REQUESTS_MAX_DEFAULT,
                CONNECT_TIMEOUT_MS_DEFAULT,
                WRITE_BUFFER_HIGH_WATER_MARK_BYTES_DEFAULT,
                WRITE_BUFFER_LOW_WATER_MARK_BYTES_DEFAULT,
                Math.min(4, Runtime.getRuntime().availableProcessors()),
                CLOSE_TIMEOUT_MS_DEFAULT);
    }

    public TransportConfig withFrameBytesMax(int value) {
        return new TransportConfig(value, requestTimeoutMs, pendingRequestsMax, connectTimeoutMs,
                writeBufferHighWaterMarkBytes, writeBufferLowWaterMarkBytes, ioThreads, closeTimeoutMs);
    }

    public TransportConfig withRequestTimeoutMs(long value) {
        return new TransportConfig(frameBytesMax, value, pendingRequestsMax, connectTimeoutMs,
                writeBufferHighWaterMarkBytes, writeBufferLowWaterMarkBytes, ioThreads, closeTimeoutMs);
    }

    public TransportConfig withPendingRequestsMax(int value) {
        return new TransportConfig(frameBytesMax, requestTimeoutMs, value, connectTimeoutMs,
                writeBufferHighWaterMarkBytes, writeBufferLowWaterMarkBytes, ioThreads, closeTimeoutMs);
    }

    public TransportConfig withConnectTimeoutMs(long value) {
        return new TransportConfig(frameBytesMax, requestTimeoutMs, pendingRequestsMax, value,
                writeBufferHighWaterMarkBytes, writeBufferLowWaterMarkBytes, ioThreads, closeTimeoutMs);
    }

    /** Both water marks at once, since each is validated against the other. */
    public TransportConfig withWriteBufferWaterMarksBytes(int lowBytes, int highBytes) {
        return new TransportConfig(frameBytesMax, requestTimeoutMs, pendingRequestsMax, connectTimeoutMs,
                highBytes, lowBytes, ioThreads, closeTimeoutMs);
    }

    public TransportConfig withIoThreads(int value) {
        return new TransportConfig(frameBytesMax, requestTimeoutMs, pendingRequestsMax, connectTimeoutMs,
                writeBufferHighWaterMarkBytes, writeBufferLowWaterMarkBytes, value, closeTimeoutMs);
    }

    public TransportConfig withCloseTimeoutMs(long value) {
        return new TransportConfig(frameBytesMax, requestTimeoutMs, pendingRequestsMax, connectTimeoutMs,
                writeBufferHighWaterMarkBytes, writeBufferLowWaterMarkBytes, ioThreads, value);
    }

    private static void requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }

    private static void requireAtLeast(String name, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
        }
    }
}
