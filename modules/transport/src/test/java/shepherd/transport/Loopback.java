package shepherd.transport;

import java.io.IOException;
import shepherd.transport.internal.ChannelConnection;

/** A server and a client on 127.0.0.1 with real sockets; closes both. */
final class Loopback implements AutoCloseable {
    static final String HOST = "127.0.0.1";

    final TransportServer server;
    final TransportClient client;
    final RecordingHandler serverHandler;

    private Loopback(TransportServer server, TransportClient client, RecordingHandler serverHandler) {
        this.server = server;
        this.client = client;
        this.serverHandler = serverHandler;
    }

    static Loopback start(TransportConfig serverConfig, TransportConfig clientConfig, RecordingHandler serverHandler)
            throws IOException {
        TransportServer server = TransportServer.bind(HOST, 0, serverConfig, serverHandler);
        return new Loopback(server, TransportClient.create(clientConfig), serverHandler);
    }

    static Loopback start(TransportConfig config, RecordingHandler serverHandler) throws IOException {
        return start(config, config, serverHandler);
    }

    /** Connects a client; returns the client's end. The server's end is next in {@code serverHandler.opened}. */
    Connection connect(RecordingHandler clientHandler) {
        return Await.get(client.connect(HOST, server.port(), clientHandler));
    }

    /** The server's end of the next connection it accepted. */
    ChannelConnection acceptedConnection() {
        return (ChannelConnection) Await.take(serverHandler.opened);
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
