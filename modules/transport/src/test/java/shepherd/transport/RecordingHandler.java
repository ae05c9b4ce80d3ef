package shepherd.transport;

import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;
import shepherd.protocol.Request;
import shepherd.protocol.Response;

/**
 * A {@link ConnectionHandler} that records every callback in queues a test can wait on, and optionally answers
 * requests at once with a function of the request.
 */
public final class RecordingHandler implements ConnectionHandler {
    public record Received(Connection connection, int correlationId, Request request) {
        public void respond(Response response) {
            connection.respond(correlationId, response);
        }
    }

    public record Closed(Connection connection, Optional<Throwable> cause) {}

    public final BlockingQueue<Connection> opened = new LinkedBlockingQueue<>();
    public final BlockingQueue<Received> requests = new LinkedBlockingQueue<>();
    public final BlockingQueue<Closed> closed = new LinkedBlockingQueue<>();
    private final Function<Request, Response> responder;

    private RecordingHandler(Function<Request, Response> responder) {
        this.responder = responder;
    }

    /** Records requests and leaves answering them to the test. */
    public static RecordingHandler silent() {
        return new RecordingHandler(null);
    }

    /** Answers every request at once with {@link Samples#responseTo}. */
    public static RecordingHandler answering() {
        return new RecordingHandler(Samples::responseTo);
    }

    /** Answers a request at once with {@code responder}'s response, or leaves it to the test when that is null. */
    public static RecordingHandler answering(Function<Request, Response> responder) {
        return new RecordingHandler(responder);
    }

    @Override
    public void onOpen(Connection connection) {
        opened.add(connection);
    }

    @Override
    public void onRequest(Connection connection, int correlationId, Request request) {
        requests.add(new Received(connection, correlationId, request));
        Response response = responder == null ? null : responder.apply(request);
        if (response != null) {
            connection.respond(correlationId, response);
        }
    }

    @Override
    public void onClose(Connection connection, Optional<Throwable> cause) {
        closed.add(new Closed(connection, cause));
    }
}
