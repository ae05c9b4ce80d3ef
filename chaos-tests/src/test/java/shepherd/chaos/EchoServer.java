package shepherd.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP echo server on 127.0.0.1 with a free port: the simplest real upstream to put behind a Toxiproxy proxy.
 * One daemon thread accepts, one per connection echoes every byte back until the peer closes.
 */
public final class EchoServer implements AutoCloseable {

    private static final long JOIN_TIMEOUT_MS = 5_000;

    private final ServerSocket listener;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;

    private EchoServer(ServerSocket listener) {
        this.listener = listener;
        this.acceptor = new Thread(this::acceptUntilClosed, "echo-accept-" + listener.getLocalPort());
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    public static EchoServer start() throws IOException {
        return new EchoServer(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
    }

    /** {@code host:port}, as Toxiproxy wants an upstream. */
    public String address() {
        return listener.getInetAddress().getHostAddress() + ":" + listener.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket connection : connections) {
            connection.close();
        }
        try {
            acceptor.join(JOIN_TIMEOUT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void acceptUntilClosed() {
        while (!listener.isClosed()) {
            try {
                Socket connection = listener.accept();
                connections.add(connection);
                Thread echo = new Thread(() -> echoUntilClosed(connection), "echo-" + connection.getPort());
                echo.setDaemon(true);
                echo.start();
            } catch (IOException closed) {
                return; // close() closed the listener
            }
        }
    }

    private void echoUntilClosed(Socket connection) {
        try (connection; InputStream in = connection.getInputStream(); OutputStream out = connection.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException reset) {
            // the peer (Toxiproxy) reset or close() closed the socket: nothing left to echo
        } finally {
            connections.remove(connection);
        }
    }
}
