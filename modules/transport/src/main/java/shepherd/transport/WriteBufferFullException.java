package shepherd.transport;

/**
 * Back-pressure: the peer is not reading fast enough, the connection's unsent bytes passed
 * {@link TransportConfig#writeBufferHighWaterMarkBytes()}, and the new request was not sent rather than buffered.
 * Retry after the connection drains, or treat the peer as slow (the coordinator counts it as a missed ping).
 */
public final class WriteBufferFullException extends TransportException {
    private final long unsentBytes;

    public WriteBufferFullException(String connection, long unsentBytes, int highWaterMarkBytes) {
        super(connection + " is not writable: its unsent bytes passed writeBufferHighWaterMarkBytes "
                + highWaterMarkBytes + " (" + unsentBytes + " now)");
        this.unsentBytes = unsentBytes;
    }

    /** Bytes queued for the socket just after the request was refused (the socket may have drained some). */
    public long unsentBytes() {
        return unsentBytes;
    }
}
