package shepherd.consumer;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.OffsetCommitResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.transport.Connection;
import shepherd.transport.ConnectionHandler;
import shepherd.transport.TransportConfig;
import shepherd.transport.TransportServer;

/**
 * A broker on a real socket that plays the coordinator by script: it names itself coordinator of {@link #epoch}
 * on Consult, accepts Register, records what the consumer sends, and lets the test send Ping, Stop and Start on
 * the consumer's connection. Only the consumer runtime is real here; the real coordinator is tested in the broker.
 */
final class ScriptedCoordinator implements AutoCloseable {
    static final int ID = 7;

    final TransportServer server;
    final List<Request> received = new CopyOnWriteArrayList<>();
    volatile int epoch;
    volatile Connection member;
    volatile Function<Request, Response> commitAnswer = r -> new OffsetCommitResponse(ErrorCode.NONE, List.of());
    /** The answer to a Leave; null: none at all (a coordinator that hangs). */
    volatile Function<Request, Response> leaveAnswer = r -> LeaveResponse.ok();

    ScriptedCoordinator(int epoch) throws IOException {
        this.epoch = epoch;
        this.server = TransportServer.bind("127.0.0.1", 0, TransportConfig.defaults(), new ConnectionHandler() {
            @Override
            public void onRequest(Connection connection, int correlationId, Request request) {
                received.add(request);
                Response response = answer(connection, request);
                if (response != null) {
                    connection.respond(correlationId, response);
                }
            }
        });
    }

    private Response answer(Connection connection, Request request) {
        if (request instanceof ConsultRequest) {
            return new ConsultResponse(ErrorCode.NONE, ID, epoch,
                    List.of(new BrokerInfo(ID, "127.0.0.1", server.port(), "scripted")));
        }
        if (request instanceof RegisterRequest r) {
            member = connection;
            return new RegisterResponse(ErrorCode.NONE, epoch, r.consumerId());
        }
        if (request instanceof shepherd.protocol.LeaveRequest) {
            return leaveAnswer.apply(request);
        }
        if (request instanceof shepherd.protocol.OffsetCommitRequest) {
            return commitAnswer.apply(request);
        }
        return RegisterResponse.error(ErrorCode.INVALID_REQUEST);
    }

    String bootstrap() {
        return "127.0.0.1:" + server.port();
    }

    /** Sends {@code request} to the registered consumer and waits for its answer. */
    Response send(Request request) throws Exception {
        Connection c = member;
        if (c == null) {
            throw new IllegalStateException("no consumer registered");
        }
        CompletableFuture<Response> f = c.request(request, 5_000);
        return f.get(6, TimeUnit.SECONDS);
    }

    <T extends Request> List<T> receivedOf(Class<T> type) {
        return received.stream().filter(type::isInstance).map(type::cast).toList();
    }

    @Override
    public void close() {
        server.close();
    }
}
