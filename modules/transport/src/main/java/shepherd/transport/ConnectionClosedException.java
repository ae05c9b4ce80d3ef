package shepherd.transport;

/**
 * The connection closed (or was already closed) before the response arrived. The request may or may not have
 * reached the peer and been acted on: in-flight messages of a closed connection are lost, never late (DESIGN §5).
 */
public final class ConnectionClosedException extends TransportException {
    public ConnectionClosedException(String message) {
        super(message);
    }
}
