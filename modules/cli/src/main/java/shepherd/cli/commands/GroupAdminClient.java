package shepherd.cli.commands;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.DescribeGroupsRequest;
import shepherd.protocol.DescribeGroupsResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.transport.Connection;
import shepherd.transport.ConnectionHandler;
import shepherd.transport.TransportClient;
import shepherd.transport.TransportConfig;

/**
 * Asks the coordinator to describe groups, the way a consumer finds it: Consult a bootstrap broker (the next one if
 * a broker cannot be reached), connect to the coordinator it names, send DescribeGroups. If the coordinator moved
 * in between (NOT_COORDINATOR, or it cannot be reached), discovery starts over, a bounded number of times. Each
 * request uses its own short-lived connection: an admin tool holds nothing open between refreshes.
 */
final class GroupAdminClient implements AutoCloseable {
    /** Discovery rounds before giving up: enough to ride over one change of coordinator. */
    static final int ROUNDS_MAX = 3;
    static final long CONNECT_TIMEOUT_MS = 3_000;

    private static final ConnectionHandler NO_REQUESTS = (connection, correlationId, request) -> { };

    private final List<InetSocketAddress> bootstrap;
    private final long requestTimeoutMs;
    private final TransportClient client;

    GroupAdminClient(List<InetSocketAddress> bootstrap, long requestTimeoutMs) {
        this.bootstrap = List.copyOf(bootstrap);
        this.requestTimeoutMs = requestTimeoutMs;
        this.client = TransportClient.create(TransportConfig.defaults().withIoThreads(1)
                .withConnectTimeoutMs(CONNECT_TIMEOUT_MS).withRequestTimeoutMs(requestTimeoutMs));
    }

    /**
     * The coordinator's answer (its error code may still be COORDINATOR_NOT_READY).
     *
     * @throws GroupAdminException no broker answered, none knows a coordinator, or the coordinator kept moving
     */
    DescribeGroupsResponse describe(List<String> groupIds) {
        List<String> problems = new ArrayList<>();
        for (int round = 0; round < ROUNDS_MAX; round++) {
            ConsultResponse consult = consultAny(problems);
            if (consult.coordinatorId() == ConsultResponse.NONE) {
                problems.add("no coordinator is elected");
                continue;
            }
            BrokerInfo coordinator = consult.brokers().stream().filter(b -> b.id() == consult.coordinatorId())
                    .findFirst().orElse(null);
            if (coordinator == null) {
                problems.add("coordinator " + consult.coordinatorId() + " is not among the live brokers");
                continue;
            }
            String where = coordinator.host() + ":" + coordinator.port();
            Response r;
            try {
                r = ask(new InetSocketAddress(coordinator.host(), coordinator.port()),
                        new DescribeGroupsRequest(groupIds));
            } catch (GroupAdminException e) {
                problems.add("coordinator " + coordinator.id() + " at " + where + ": " + e.getMessage());
                continue;
            }
            DescribeGroupsResponse described = (DescribeGroupsResponse) r;
            if (described.errorCode() == ErrorCode.NOT_COORDINATOR) {
                problems.add("broker " + coordinator.id() + " is no longer the coordinator");
                continue;
            }
            return described;
        }
        throw new GroupAdminException("no answer from the coordinator after " + ROUNDS_MAX + " attempts: "
                + String.join("; ", problems.subList(Math.max(0, problems.size() - 3), problems.size())));
    }

    /** The first bootstrap broker's Consult answer. */
    private ConsultResponse consultAny(List<String> problems) {
        List<String> unreachable = new ArrayList<>();
        for (InetSocketAddress address : bootstrap) {
            try {
                return (ConsultResponse) ask(address, new ConsultRequest());
            } catch (GroupAdminException e) {
                unreachable.add(address.getHostString() + ":" + address.getPort() + " (" + e.getMessage() + ")");
            }
        }
        throw new GroupAdminException("cannot reach any bootstrap broker: " + String.join(", ", unreachable));
    }

    /** One request on a fresh connection, closed afterwards. */
    private Response ask(InetSocketAddress address, Request request) {
        Connection connection;
        try {
            connection = client.connect(address.getHostString(), address.getPort(), NO_REQUESTS)
                    .get(CONNECT_TIMEOUT_MS + 1_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new GroupAdminException(rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GroupAdminException("interrupted");
        }
        try {
            Response r = connection.request(request, requestTimeoutMs)
                    .get(requestTimeoutMs + 1_000, TimeUnit.MILLISECONDS);
            if (r.apiKey() != request.apiKey()) {
                throw new GroupAdminException("answered " + r.apiKey() + " to " + request.apiKey());
            }
            return r;
        } catch (ExecutionException | TimeoutException | CompletionException e) {
            throw new GroupAdminException(rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GroupAdminException("interrupted");
        } finally {
            connection.close();
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (e instanceof TimeoutException || root instanceof TimeoutException) {
            return "timed out";
        }
        String message = root.getMessage();
        return message == null || message.isBlank() ? root.getClass().getSimpleName() : message;
    }

    @Override
    public void close() {
        client.close();
    }
}
