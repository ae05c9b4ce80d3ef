package shepherd.transport;

/**
 * The connection already has {@link TransportConfig#pendingRequestsMax()} requests awaiting a response; the new
 * request was not sent.
 */
public final class TooManyPendingRequestsException extends TransportException {
    private final int pendingRequestsMax;

    public TooManyPendingRequestsException(String connection, int pendingRequestsMax) {
        super(connection + " already has " + pendingRequestsMax + " requests awaiting a response"
                + " (pendingRequestsMax)");
        this.pendingRequestsMax = pendingRequestsMax;
    }

    public int pendingRequestsMax() {
        return pendingRequestsMax;
    }
}
