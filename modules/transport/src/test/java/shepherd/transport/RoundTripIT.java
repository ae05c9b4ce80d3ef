package shepherd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.transport.RecordingHandler.Received;

/** Every message type over a real loopback socket, in both directions on the same connection. */
class RoundTripIT {
    private final RecordingHandler serverHandler = RecordingHandler.answering();
    private final RecordingHandler clientHandler = RecordingHandler.answering();
    private Loopback loopback;
    private Connection clientEnd;
    private Connection serverEnd;

    @BeforeEach
    void connect() throws Exception {
        loopback = Loopback.start(TransportConfig.defaults(), serverHandler);
        clientEnd = loopback.connect(clientHandler);
        serverEnd = loopback.acceptedConnection();
        assertSame(clientEnd, Await.take(clientHandler.opened));
    }

    @AfterEach
    void close() {
        loopback.close();
    }

    @Test
    void everyRequestTypeRoundTripsFromClientToServer() {
        for (Request request : requests()) {
            assertEquals(Samples.responseTo(request), Await.get(clientEnd.request(request)));
            Received received = Await.take(serverHandler.requests);
            assertEquals(request, received.request());
            assertSame(serverEnd, received.connection());
        }
        assertTrue(clientHandler.requests.isEmpty());
    }

    @Test
    void everyRequestTypeRoundTripsFromServerToClientOnTheClientsConnection() {
        for (Request request : requests()) {
            assertEquals(Samples.responseTo(request), Await.get(serverEnd.request(request)));
            Received received = Await.take(clientHandler.requests);
            assertEquals(request, received.request());
            assertSame(clientEnd, received.connection());
        }
        assertTrue(serverHandler.requests.isEmpty());
    }

    @Test
    void bothDirectionsAtOnceKeepTheirCorrelationsApart() {
        // Small frames only: 700 requests each way stay far below the write-buffer high water mark, which would
        // otherwise (rightly) refuse some of them.
        List<Request> requests = Samples.everyRequest();
        List<CompletableFuture<Response>> fromClient = new ArrayList<>();
        List<CompletableFuture<Response>> fromServer = new ArrayList<>();
        for (int round = 0; round < 50; round++) {
            for (Request request : requests) {
                fromClient.add(clientEnd.request(request));
                fromServer.add(serverEnd.request(request));
            }
        }
        for (int i = 0; i < fromClient.size(); i++) {
            Request request = requests.get(i % requests.size());
            assertEquals(Samples.responseTo(request), Await.get(fromClient.get(i)));
            assertEquals(Samples.responseTo(request), Await.get(fromServer.get(i)));
        }
        assertEquals(0, clientEnd.pendingRequests());
        assertEquals(0, serverEnd.pendingRequests());
    }

    private static List<Request> requests() {
        List<Request> requests = new ArrayList<>(Samples.everyRequest());
        requests.add(Samples.wildcardRegister());
        requests.add(Samples.startRequest(9, 10, 500)); // a larger frame: several TCP segments
        return requests;
    }
}
