package shepherd.transport;

/**
 * The peer sent a frame we cannot accept: larger than {@link TransportConfig#frameBytesMax()}, or malformed (the
 * cause is then the protocol's {@code DecodeException}). The connection was answered where DESIGN §3 requires it
 * and closed; {@link ConnectionHandler#onClose} receives this as the cause.
 */
public final class InvalidFrameException extends TransportException {
    private final String reason;

    public InvalidFrameException(String reason, Throwable cause) {
        super(reason, cause);
        this.reason = reason;
    }

    public String reason() {
        return reason;
    }
}
