package shepherd.transport;

/** A connection could not be opened: refused, unreachable, or not established within the connect timeout. */
public final class ConnectFailedException extends TransportException {
    private final String host;
    private final int port;

    public ConnectFailedException(String host, int port, String reason, Throwable cause) {
        super("Cannot connect to " + host + ":" + port + ": " + reason, cause);
        this.host = host;
        this.port = port;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }
}
