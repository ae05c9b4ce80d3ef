package shepherd.consumer.internal;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.consumer.CommitFailedException;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.session.SessionEvent;
import shepherd.consumer.session.SessionState;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.OffsetCommitRequest;
import shepherd.protocol.OffsetCommitResponse;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PartitionResult;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.protocol.StartRequest;
import shepherd.transport.Connection;
import shepherd.transport.ConnectionHandler;
import shepherd.transport.TransportClient;

/**
 * The consumer's connections: the one-shot Consult connections of discovery and the long-lived connection to the
 * coordinator, whose requests, answers and close come back to the network loop as session events.
 *
 * <p>Connections are identified by object, not broker id: an event of a connection that is no longer the current
 * one (a late close of the previous coordinator connection, say) is dropped here, since the core only knows broker
 * ids and would mistake it for the current one. Everything but the two discovery accessors runs on the loop.
 */
final class CoordinatorLink {
    private static final Logger LOG = LoggerFactory.getLogger(CoordinatorLink.class);

    /** What the network loop offers the link: tasks posted onto it, events fed to the session there. */
    interface Loop {
        /** Runs {@code task} on the loop later; false once the loop runs nothing of this consumer's. */
        boolean post(Runnable task);

        /** Hands {@code event} to the session core (on the loop). */
        void feed(SessionEvent event);

        /** The session state as of the loop's last step (on the loop). */
        SessionState state();
    }

    /** A Consult connection: brokers never send requests on it. */
    private static final ConnectionHandler IGNORE_REQUESTS = (connection, correlationId, request) -> { };

    private final ConsumerConfig config;
    private final TransportClient client;
    private final TakenOffsets taken;
    private final Loop loop;
    private final Map<String, String> lastConsultFailures = new ConcurrentHashMap<>();
    private volatile boolean consultAnswered;

    // Loop-thread state.
    private Connection current;
    private int currentBrokerId = SessionState.NONE;
    private long connectAttempt;

    CoordinatorLink(ConsumerConfig config, TransportClient client, TakenOffsets taken, Loop loop) {
        this.config = config;
        this.client = client;
        this.taken = taken;
        this.loop = loop;
    }

    /** Whether any broker ever answered a Consult (any thread). */
    boolean anyConsultAnswered() {
        return consultAnswered;
    }

    /** The last failure of each broker address that has not answered since (any thread). */
    Map<String, String> consultFailures() {
        return new TreeMap<>(lastConsultFailures);
    }

    /** Whether the coordinator connection is open, as far as the loop has heard. */
    boolean connected() {
        return current != null;
    }

    /** A one-shot connection: connect, Consult, close (seed consumerStartup step 1). */
    void sendConsult(BrokerInfo broker) {
        String address = broker.host() + ":" + broker.port();
        client.connect(broker.host(), broker.port(), IGNORE_REQUESTS).whenComplete((connection, error) -> {
            if (error != null) {
                loop.post(() -> consultFailed(broker, address, "cannot connect: " + rootMessage(error)));
                return;
            }
            connection.request(new ConsultRequest(), config.requestTimeoutMs()).whenComplete((response, e2) -> {
                connection.close();
                loop.post(() -> {
                    if (e2 == null && response instanceof ConsultResponse consult) {
                        consultAnswered = true;
                        lastConsultFailures.remove(address);
                        loop.feed(new SessionEvent.ConsultAnswered(broker.id(), consult));
                    } else {
                        consultFailed(broker, address, e2 != null ? rootMessage(e2) : "unexpected " + response);
                    }
                });
            });
        });
    }

    private void consultFailed(BrokerInfo broker, String address, String reason) {
        lastConsultFailures.put(address, reason);
        LOG.debug("{}: Consult of {} failed: {}", config.consumerId(), address, reason);
        loop.feed(new SessionEvent.ConsultFailed(broker.id(), reason));
    }

    /** Opens the coordinator connection; it becomes current only if no later connect or close superseded it. */
    void connect(BrokerInfo coordinator) {
        long attempt = ++connectAttempt;
        client.connect(coordinator.host(), coordinator.port(), new CoordinatorHandler())
                .whenComplete((connection, error) -> loop.post(() -> {
                    if (attempt != connectAttempt || loop.state().terminated()) {
                        if (connection != null) {
                            connection.close();
                        }
                        return;
                    }
                    if (error != null || !connection.isOpen()) {
                        LOG.info("{}: cannot connect to coordinator {} at {}:{}: {}", config.consumerId(),
                                coordinator.id(), coordinator.host(), coordinator.port(),
                                error != null ? rootMessage(error) : "closed at once");
                        loop.feed(new SessionEvent.ConnectionClosed(coordinator.id()));
                        return;
                    }
                    current = connection;
                    currentBrokerId = coordinator.id();
                    loop.feed(new SessionEvent.Connected(coordinator.id()));
                }));
    }

    /**
     * Sends a Register or a Leave on the coordinator connection. An answer of {@code type} becomes the event
     * {@code answered} makes of it; anything else (no answer in time, a closed socket, an answer of another type)
     * closes the connection and becomes {@link SessionEvent.ConnectionClosed}: for Register the session rediscovers,
     * for Leave it ends without knowing whether the final offsets were written.
     */
    <R extends Response> void request(Request request, Class<R> type, Function<R, SessionEvent> answered) {
        Connection c = current;
        String what = request.getClass().getSimpleName().replace("Request", "");
        if (c == null) {
            throw new IllegalStateException(what + " without a coordinator connection in " + loop.state());
        }
        c.request(request, config.requestTimeoutMs()).whenComplete((response, error) -> loop.post(() -> {
            if (c != current) {
                return;
            }
            if (error == null && type.isInstance(response)) {
                loop.feed(answered.apply(type.cast(response)));
                return;
            }
            LOG.info("{}: {} got no answer from coordinator {} ({})", config.consumerId(), what, currentBrokerId,
                    error != null ? rootMessage(error) : "unexpected " + response);
            int brokerId = currentBrokerId;
            close();
            loop.feed(new SessionEvent.ConnectionClosed(brokerId));
        }));
    }

    /** Answers a request of the coordinator, if its connection is still open. */
    void respond(int correlationId, Response response) {
        if (current != null) {
            current.respond(correlationId, response);
        }
    }

    /** Sends OffsetCommit on the coordinator connection; {@code result} completes once the coordinator wrote it. */
    void commit(OffsetCommitRequest request, CompletableFuture<Void> result) {
        current.request(request, config.requestTimeoutMs()).whenComplete((response, error) -> {
            if (error != null) {
                result.completeExceptionally(new CommitFailedException(ErrorCode.UNKNOWN,
                        "OffsetCommit got no answer: " + rootMessage(error), error));
            } else if (!(response instanceof OffsetCommitResponse r)) {
                result.completeExceptionally(new CommitFailedException(ErrorCode.UNKNOWN, "unexpected " + response));
            } else if (r.errorCode() != ErrorCode.NONE) {
                result.completeExceptionally(new CommitFailedException(r.errorCode(),
                        "the coordinator refused the commit: " + r.errorCode()));
            } else {
                List<PartitionResult> refused = r.results() == null ? List.of()
                        : r.results().stream().filter(p -> p.errorCode() != ErrorCode.NONE).toList();
                if (refused.isEmpty()) {
                    result.complete(null);
                } else {
                    result.completeExceptionally(new CommitFailedException(refused.get(0).errorCode(),
                            "the coordinator refused some partitions: " + refused));
                }
            }
        });
    }

    /** Closes the coordinator connection, and abandons a connect still in flight. */
    void close() {
        connectAttempt++; // a connect still in flight is no longer wanted
        if (current != null) {
            current.close();
            current = null;
            currentBrokerId = SessionState.NONE;
        }
    }

    static String rootMessage(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
    }

    /**
     * The offsets taken, for a request whose answer carries them (Ping, and Stop); none for a Start, whose answer
     * carries none: at 64 members a rebalance's Start round would otherwise copy and sort every member's offsets for
     * nothing.
     */
    private List<PartitionOffset> takenFor(Request request) {
        return request instanceof StartRequest ? List.of() : taken.snapshot();
    }

    /** The coordinator connection: its requests and its close become events, if it is still the current one. */
    private final class CoordinatorHandler implements ConnectionHandler {
        @Override
        public void onRequest(Connection connection, int correlationId, Request request) {
            loop.post(() -> {
                if (connection == current) {
                    loop.feed(new SessionEvent.RequestReceived(correlationId, request, takenFor(request)));
                }
            });
        }

        @Override
        public void onClose(Connection connection, Optional<Throwable> cause) {
            loop.post(() -> {
                if (connection == current) {
                    int brokerId = currentBrokerId;
                    current = null;
                    currentBrokerId = SessionState.NONE;
                    LOG.info("{}: connection to coordinator {} closed{}", config.consumerId(), brokerId,
                            cause.map(t -> ": " + rootMessage(t)).orElse(""));
                    loop.feed(new SessionEvent.ConnectionClosed(brokerId));
                }
            });
        }
    }
}
