package shepherd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import shepherd.protocol.ApiKey;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.Frame;
import shepherd.protocol.FrameCodec;
import shepherd.protocol.FrameKind;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.protocol.StopRequest;
import shepherd.transport.RecordingHandler.Closed;
import shepherd.transport.RecordingHandler.Received;

/** Timeouts, limits, shutdown and bad input over real loopback sockets. */
class ConnectionLifecycleIT {
    private static final TransportConfig CONFIG = TransportConfig.defaults();

    /** Answers everything at once except Ping, which the test answers (or not). */
    private static RecordingHandler answeringAllButPing() {
        return RecordingHandler.answering(r -> r instanceof PingRequest ? null : Samples.responseTo(r));
    }

    @Test
    void requestWithoutAnAnswerTimesOutAndTheConnectionStaysUsable() throws Exception {
        try (Loopback loopback = Loopback.start(CONFIG, answeringAllButPing())) {
            Connection client = loopback.connect(RecordingHandler.silent());
            long start = System.nanoTime();
            RequestTimeoutException timeout = Await.failure(
                    client.request(new PingRequest(1, 1, (short) 0), 200), RequestTimeoutException.class);
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(elapsedMs >= 200, "timed out early, after " + elapsedMs + " ms");
            assertEquals(ApiKey.PING, timeout.apiKey());
            assertEquals(0, client.pendingRequests());

            // The late answer is dropped (logged once); the connection carries on.
            Received late = Await.take(loopback.serverHandler.requests);
            late.respond(new PingResponse(ErrorCode.NONE, 1, null));
            assertEquals(Samples.responseTo(new ConsultRequest()), Await.get(client.request(new ConsultRequest())));
            assertTrue(client.isOpen());
        }
    }

    @Test
    void theDefaultTimeoutComesFromTheConfig() throws Exception {
        try (Loopback loopback = Loopback.start(CONFIG, CONFIG.withRequestTimeoutMs(100), answeringAllButPing())) {
            Connection client = loopback.connect(RecordingHandler.silent());
            RequestTimeoutException timeout =
                    Await.failure(client.request(new PingRequest(1, 1, (short) 0)), RequestTimeoutException.class);
            assertEquals(100, timeout.timeoutMs());
        }
    }

    @Test
    void requestsBeyondPendingRequestsMaxAreRefusedUntilOneIsAnswered() throws Exception {
        try (Loopback loopback = Loopback.start(CONFIG, CONFIG.withPendingRequestsMax(4), answeringAllButPing())) {
            Connection client = loopback.connect(RecordingHandler.silent());
            List<CompletableFuture<Response>> pending = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                pending.add(client.request(new PingRequest(1, i, (short) 0)));
            }
            TooManyPendingRequestsException full = Await.failure(
                    client.request(new PingRequest(1, 4, (short) 0)), TooManyPendingRequestsException.class);
            assertEquals(4, full.pendingRequestsMax());
            assertEquals(4, client.pendingRequests());

            Received first = Await.take(loopback.serverHandler.requests);
            first.respond(new PingResponse(ErrorCode.NONE, 0, null));
            assertEquals(new PingResponse(ErrorCode.NONE, 0, null), Await.get(pending.get(0)));
            CompletableFuture<Response> next = client.request(new PingRequest(1, 5, (short) 0));
            assertFalse(next.isCompletedExceptionally());
            for (int i = 1; i < 4; i++) {
                Await.take(loopback.serverHandler.requests).respond(new PingResponse(ErrorCode.NONE, i, null));
            }
            Await.take(loopback.serverHandler.requests).respond(new PingResponse(ErrorCode.NONE, 5, null));
            assertEquals(new PingResponse(ErrorCode.NONE, 5, null), Await.get(next));
        }
    }

    @Test
    void serverShutdownClosesEveryClientCleanly() throws Exception {
        RecordingHandler serverHandler = answeringAllButPing();
        Loopback loopback = Loopback.start(CONFIG, serverHandler);
        try {
            int clients = 3;
            List<RecordingHandler> clientHandlers = new ArrayList<>();
            List<CompletableFuture<Response>> clientPending = new ArrayList<>();
            List<CompletableFuture<Response>> serverPending = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                RecordingHandler clientHandler = RecordingHandler.silent();
                clientHandlers.add(clientHandler);
                Connection client = loopback.connect(clientHandler);
                clientPending.add(client.request(new PingRequest(1, i, (short) 0)));
                serverPending.add(Await.take(serverHandler.opened).request(new StopRequest(1, i)));
            }
            // One answer is written just before the close: a clean close delivers it.
            Received ping = Await.take(serverHandler.requests);
            for (int i = 1; i < clients; i++) {
                Await.take(serverHandler.requests);
            }
            for (RecordingHandler clientHandler : clientHandlers) {
                Await.take(clientHandler.requests); // the Stop arrived and stays unanswered
            }
            ping.respond(new PingResponse(ErrorCode.NONE, 7, null));

            long start = System.nanoTime();
            loopback.server.close();
            long closeMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(closeMs < CONFIG.closeTimeoutMs(), "server close took " + closeMs + " ms");

            int answered = 0;
            for (CompletableFuture<Response> request : clientPending) {
                // Each ends one way or the other; the answer may still be on its way when the close returns.
                request.handle((r, e) -> null).get(10, java.util.concurrent.TimeUnit.SECONDS);
                if (!request.isCompletedExceptionally()) {
                    assertEquals(new PingResponse(ErrorCode.NONE, 7, null), request.join());
                    answered++;
                } else {
                    Await.failure(request, ConnectionClosedException.class);
                }
            }
            assertEquals(1, answered, "the answer written before the close was lost");
            for (CompletableFuture<Response> request : serverPending) {
                Await.failure(request, ConnectionClosedException.class);
            }
            for (RecordingHandler clientHandler : clientHandlers) {
                Closed closed = Await.take(clientHandler.closed);
                assertTrue(closed.cause().isEmpty(), "client saw " + closed.cause());
                assertFalse(closed.connection().isOpen());
                Await.failure(closed.connection().request(new ConsultRequest()), ConnectionClosedException.class);
            }
            for (int i = 0; i < clients; i++) {
                assertTrue(Await.take(serverHandler.closed).cause().isEmpty());
            }
            assertTrue(loopback.server.connections().isEmpty());
        } finally {
            loopback.close();
        }
    }

    @Test
    void clientCloseIsSeenByTheServer() throws Exception {
        try (Loopback loopback = Loopback.start(CONFIG, RecordingHandler.answering())) {
            Connection client = loopback.connect(RecordingHandler.silent());
            Connection serverEnd = Await.take(loopback.serverHandler.opened);
            Await.get(client.close());
            Closed closed = Await.take(loopback.serverHandler.closed);
            assertEquals(serverEnd, closed.connection());
            assertTrue(closed.cause().isEmpty());
            Await.get(serverEnd.closeFuture());
        }
    }

    @Test
    void connectingToAPortNobodyListensOnFailsWithConnectFailed() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getByName(Loopback.HOST))) {
            port = probe.getLocalPort();
        }
        try (TransportClient client = TransportClient.create(CONFIG)) {
            ConnectFailedException failed = Await.failure(
                    client.connect(Loopback.HOST, port, RecordingHandler.silent()), ConnectFailedException.class);
            assertEquals(port, failed.port());
            assertInstanceOf(IOException.class, failed.getCause());
        }
    }

    @Test
    void clientHandlerWhoseOnOpenThrowsFailsTheConnectAndClosesTheConnection() throws Exception {
        try (Loopback loopback = Loopback.start(CONFIG, RecordingHandler.answering())) {
            ConnectionHandler broken = new ConnectionHandler() {
                @Override
                public void onOpen(Connection connection) {
                    throw new IllegalStateException("cannot open");
                }

                @Override
                public void onRequest(Connection connection, int correlationId, Request request) {}
            };
            ConnectFailedException failed = Await.failure(
                    loopback.client.connect(Loopback.HOST, loopback.server.port(), broken),
                    ConnectFailedException.class);
            assertInstanceOf(ConnectionClosedException.class, failed.getCause());
            assertTrue(Await.take(loopback.serverHandler.closed).cause().isEmpty());
        }
    }

    @Test
    void bindingAPortInUseFailsWithAnIOException() throws Exception {
        try (TransportServer first = TransportServer.bind(Loopback.HOST, 0, CONFIG, RecordingHandler.answering())) {
            assertThrows(IOException.class,
                    () -> TransportServer.bind(Loopback.HOST, first.port(), CONFIG, RecordingHandler.answering()));
        }
    }

    @Test
    void malformedRequestIsAnsweredThenClosedWhileOtherClientsAreServed() throws Exception {
        try (Loopback loopback = Loopback.start(CONFIG, RecordingHandler.answering());
             Socket raw = new Socket()) {
            Connection good = loopback.connect(RecordingHandler.silent());
            Await.take(loopback.serverHandler.opened);
            raw.connect(new InetSocketAddress(Loopback.HOST, loopback.server.port()));
            Connection badEnd = Await.take(loopback.serverHandler.opened);
            ByteBuffer truncatedPing = ByteBuffer.allocate(4 + 9 + 2)
                    .putInt(9 + 2).put(FrameKind.REQUEST.code()).putShort(ApiKey.PING.id()).putShort((short) 0)
                    .putInt(99).putShort((short) 1);
            raw.getOutputStream().write(truncatedPing.array());

            DataInputStream in = new DataInputStream(raw.getInputStream());
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            Frame reply = new FrameCodec().decode(ByteBuffer.wrap(body));
            assertEquals(99, reply.header().correlationId());
            assertEquals(PingResponse.error(ErrorCode.INVALID_REQUEST), reply.message());
            assertEquals(-1, in.read(), "the connection was not closed after the reply");

            Closed closed = Await.take(loopback.serverHandler.closed);
            assertEquals(badEnd, closed.connection());
            assertInstanceOf(InvalidFrameException.class, closed.cause().orElseThrow());
            for (Request request : Samples.everyRequest()) {
                assertEquals(Samples.responseTo(request), Await.get(good.request(request)));
            }
            assertEquals(1, loopback.server.malformedFrames(), "the good client's frames were counted as malformed");
        }
    }

    @Test
    void oversizedFrameIsAnsweredThenClosed() throws Exception {
        try (Loopback loopback = Loopback.start(CONFIG.withFrameBytesMax(4_096), RecordingHandler.answering());
             Socket raw = new Socket(Loopback.HOST, loopback.server.port())) {
            ByteBuffer header = ByteBuffer.allocate(4 + 9)
                    .putInt(100_000_000).put(FrameKind.REQUEST.code()).putShort(ApiKey.CONSULT.id())
                    .putShort((short) 0).putInt(5);
            raw.getOutputStream().write(header.array());
            raw.getOutputStream().write(new byte[8_192]); // part of the "body": never buffered, discarded

            DataInputStream in = new DataInputStream(raw.getInputStream());
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            Frame reply = new FrameCodec().decode(ByteBuffer.wrap(body));
            assertEquals(5, reply.header().correlationId());
            assertEquals(ErrorCode.INVALID_REQUEST, ((Response) reply.message()).errorCode());
            assertEquals(-1, in.read());
            assertInstanceOf(InvalidFrameException.class,
                    Await.take(loopback.serverHandler.closed).cause().orElseThrow());
            assertEquals(1, loopback.server.malformedFrames());
        }
    }
}
