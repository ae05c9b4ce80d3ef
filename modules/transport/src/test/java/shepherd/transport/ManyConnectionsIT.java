package shepherd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.PingRequest;
import shepherd.protocol.Request;
import shepherd.protocol.Response;

/**
 * 1,000 concurrent connections from one client (one shared event-loop group) to one server, each with a request
 * in both directions. Sized for a 2-core machine: two I/O threads per side.
 */
class ManyConnectionsIT {
    private static final Logger log = LoggerFactory.getLogger(ManyConnectionsIT.class);
    private static final int CONNECTIONS = 1_000;

    @Test
    void thousandConcurrentConnectionsEachDoRequestsBothWays() throws Exception {
        TransportConfig config = TransportConfig.defaults().withIoThreads(2);
        RecordingHandler serverHandler = RecordingHandler.answering();
        RecordingHandler clientHandler = RecordingHandler.answering();
        long start = System.nanoTime();
        try (Loopback loopback = Loopback.start(config, serverHandler)) {
            List<CompletableFuture<Response>> exchanges = new ArrayList<>(CONNECTIONS);
            List<CompletableFuture<Connection>> connects = new ArrayList<>(CONNECTIONS);
            for (int i = 0; i < CONNECTIONS; i++) {
                connects.add(loopback.client.connect(Loopback.HOST, loopback.server.port(), clientHandler));
            }
            for (int i = 0; i < CONNECTIONS; i++) {
                int n = i;
                exchanges.add(connects.get(i).thenCompose(c -> c.request(new ConsultRequest())));
                exchanges.add(connects.get(i).thenCompose(c -> c.request(new PingRequest(1, n, (short) 0))));
            }
            CompletableFuture.allOf(exchanges.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            long connected = System.nanoTime();

            // Every server-side connection asks its client something back.
            Set<Connection> serverEnds = new HashSet<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                serverEnds.add(Await.take(serverHandler.opened));
            }
            assertEquals(CONNECTIONS, serverEnds.size());
            assertEquals(CONNECTIONS, loopback.server.connections().size());
            List<CompletableFuture<Response>> pings = new ArrayList<>(CONNECTIONS);
            for (Connection serverEnd : serverEnds) {
                pings.add(serverEnd.request(new PingRequest(2, 3, (short) 1)));
            }
            CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            for (CompletableFuture<Response> ping : pings) {
                assertEquals(Samples.responseTo(new PingRequest(2, 3, (short) 1)), ping.join());
            }
            for (int i = 0; i < CONNECTIONS; i++) {
                Request consult = new ConsultRequest();
                assertEquals(Samples.responseTo(consult), exchanges.get(2 * i).join());
            }
            assertEquals(3 * CONNECTIONS, serverHandler.requests.size() + clientHandler.requests.size());
            log.info("{} connections, {} requests each way: {} ms to connect and exchange, {} ms in all",
                    CONNECTIONS, 2, (connected - start) / 1_000_000, (System.nanoTime() - start) / 1_000_000);
        }
        // Closing the client closed every connection; the server saw each close.
        for (int i = 0; i < CONNECTIONS; i++) {
            Await.take(serverHandler.closed);
        }
    }
}
