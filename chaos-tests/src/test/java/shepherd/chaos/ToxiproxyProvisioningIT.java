package shepherd.chaos;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import eu.rekawek.toxiproxy.Proxy;
import eu.rekawek.toxiproxy.ToxiproxyClient;
import eu.rekawek.toxiproxy.model.ToxicDirection;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Proves the chaos suite's Toxiproxy is provisioned and does what the suite relies on (DESIGN §8): a real server
 * found or started by {@link ToxiproxyServer}, a proxy created through the HTTP API in front of a real upstream,
 * cut (disabled) and restored, and slowed by a latency toxic. Fails, with how to get a server, when there is none.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ToxiproxyProvisioningIT {

    private static final byte[] PING = "ping through toxiproxy\n".getBytes(US_ASCII);
    private static final int IO_TIMEOUT_MS = 5_000;
    private static final long LATENCY_MS = 300;

    private static ToxiproxyServer toxiproxy;
    private static ToxiproxyClient client;

    private EchoServer upstream;
    private String proxyName;
    private Proxy proxy;

    @BeforeAll
    static void startToxiproxy() throws IOException, InterruptedException {
        toxiproxy = ToxiproxyServer.start();
        System.out.println("Using " + toxiproxy);
        client = toxiproxy.client();
    }

    @AfterAll
    static void stopToxiproxy() {
        if (toxiproxy != null) {
            toxiproxy.close();
        }
    }

    @BeforeEach
    void proxyAnEchoServer(TestInfo test) throws IOException {
        upstream = EchoServer.start();
        proxyName = "provisioning-" + test.getTestMethod().orElseThrow().getName();
        Proxy leftover = client.getProxyOrNull(proxyName); // from a killed run against a shared TOXIPROXY_URL
        if (leftover != null) {
            leftover.delete();
        }
        // Port 0: Toxiproxy picks a free port and reports it in the proxy's listen address.
        proxy = client.createProxy(proxyName, "127.0.0.1:0", upstream.address());
    }

    @AfterEach
    void deleteProxyAndUpstream() throws IOException {
        try {
            if (proxy != null) {
                proxy.delete();
            }
        } finally {
            if (upstream != null) {
                upstream.close();
            }
        }
    }

    @Test
    void serverAnswersWithItsVersion() {
        assertFalse(toxiproxy.version().isBlank(), "GET /version answered nothing");
    }

    @Test
    void bytesSentThroughTheProxyComeBackFromTheUpstream() throws IOException {
        assertTrue(proxy.isEnabled());
        try (Socket socket = connect(proxy.getListen())) {
            assertEchoes(socket);
        }
    }

    @Test
    void disabledProxyClosesConnectionsAndRefusesNewOnesUntilReenabled() throws IOException {
        String listen = proxy.getListen();
        try (Socket open = connect(listen)) {
            assertEchoes(open);

            proxy.disable();

            assertClosedByPeer(open);
        }
        assertThrows(ConnectException.class, () -> connect(listen).close(), "disabled proxy accepted a connection");

        proxy.enable();

        String listenAgain = client.getProxy(proxyName).getListen();
        try (Socket again = connect(listenAgain)) {
            assertEchoes(again);
        }
    }

    @Test
    void latencyToxicDelaysTheEchoByAtLeastItsLatency() throws IOException {
        proxy.toxics().latency("downstream-latency", ToxicDirection.DOWNSTREAM, LATENCY_MS);
        try (Socket socket = connect(proxy.getListen())) {
            long startNanos = System.nanoTime();
            assertEchoes(socket);
            long roundTripMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);

            // A lower bound only: how much slower a loaded machine is says nothing about Toxiproxy.
            assertTrue(roundTripMs >= LATENCY_MS,
                    "round trip took " + roundTripMs + " ms, less than the " + LATENCY_MS + " ms latency toxic");
        }
    }

    private static Socket connect(String listen) throws IOException {
        int colon = listen.lastIndexOf(':');
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(listen.substring(0, colon),
                    Integer.parseInt(listen.substring(colon + 1))), IO_TIMEOUT_MS);
            socket.setSoTimeout(IO_TIMEOUT_MS);
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    private static void assertEchoes(Socket socket) throws IOException {
        socket.getOutputStream().write(PING);
        socket.getOutputStream().flush();
        byte[] echoed = socket.getInputStream().readNBytes(PING.length);
        assertArrayEquals(PING, echoed, "the echo through the proxy differs from what was sent");
    }

    /** The peer closed (FIN, read gives -1) or reset the connection; a read timeout means it is still open. */
    private static void assertClosedByPeer(Socket socket) throws IOException {
        try {
            int read = socket.getInputStream().read();
            assertEquals(-1, read, "a byte arrived on a connection of the disabled proxy");
        } catch (SocketTimeoutException stillOpen) {
            fail("the disabled proxy left an existing connection open for " + IO_TIMEOUT_MS + " ms");
        } catch (SocketException reset) {
            // reset by Toxiproxy: closed as well
        }
    }
}
