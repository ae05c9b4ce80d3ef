package shepherd.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder between a client and a server (ZooKeeper, in the adapter's and broker's integration tests) whose
 * live connections can be cut and new ones refused: a cut gives the client a real Disconnected (and, while the proxy
 * keeps accepting, a real reconnect to the same session); cut and refused for longer than the session timeout, the
 * server really expires the session. For integration tests of single components only: the chaos suite uses a real
 * Toxiproxy (DESIGN §8). It lives beside {@link EmbeddedZooKeeper}, which it is used with, rather than in the test
 * kit: the test kit runs this module's adapter in the simulation, so this module's tests cannot depend on it.
 */
public final class CuttableProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean refusing;

    public CuttableProxy(String targetHostPort) throws IOException {
        String[] parts = targetHostPort.split(":");
        target = new InetSocketAddress(parts[0], Integer.parseInt(parts[1]));
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public String hostPort() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** Closes every live connection; new ones are still accepted. */
    public void cut() {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        sockets.clear();
    }

    /** While refusing, every new connection is closed at once: the client cannot reconnect. */
    public void refuse(boolean refuse) {
        this.refusing = refuse;
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (refusing) {
                    client.close();
                    continue;
                }
                Socket server = new Socket(target.getAddress(), target.getPort());
                sockets.add(client);
                sockets.add(server);
                pipe(client, server);
                pipe(server, client);
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                }
            } catch (IOException ignored) {
                // the other side or cut() closed it
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException ignored) {
                    // already closed
                }
            }
        }, "proxy-pipe");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        cut();
    }
}
