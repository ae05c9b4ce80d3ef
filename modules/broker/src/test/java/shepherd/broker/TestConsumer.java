package shepherd.broker;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Request;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;
import shepherd.protocol.Subscription;
import shepherd.protocol.TopicStreams;
import shepherd.transport.Connection;
import shepherd.transport.ConnectionHandler;
import shepherd.transport.TransportClient;

/**
 * A well-behaved consumer speaking the protocol directly (no consumer module): Consult any broker, Register with the
 * coordinator, answer Ping/Stop/Start, keep the highest epoch seen, and rediscover when its connection closes or its
 * lease ({@code ping_interval × (retries + 1)} without a valid ping) runs out. Records what the last Start assigned.
 * All state lives on one thread; tests read the volatile fields.
 *
 * <p>{@link #die()} makes it a failed process: it stops answering anything and never comes back.
 */
final class TestConsumer implements AutoCloseable {
    private final TransportClient client;
    private final List<InetSocketAddress> bootstrap;
    private final String group;
    private final String id;
    private final Subscription subscription;
    private final int pingIntervalMs;
    private final short maxPingRetries;
    private final ScheduledExecutorService exec;

    // Loop-thread state, published through volatiles for the test thread.
    private Connection current;
    private int nextBootstrap;
    private long lastGrantMs;
    private volatile int highestEpoch = -1;
    private volatile int generation = -1;
    private volatile List<PartitionAssignment> assigned; // null unless started
    private volatile int registrations;
    private volatile boolean dead;
    private volatile boolean closed;
    private volatile long stopResponseDelayMs;
    private volatile int stopsReceived;
    // Ownership history: one interval per partition per Start, closed by Stop, lease expiry, connection close or
    // close(); written on the loop thread only.
    private final List<Ownership> ownership = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.Map<String, Ownership> open = new java.util.HashMap<>();

    /** One partition held from {@code fromNanos} (Start received) until {@code toNanos} (Long.MAX_VALUE if held). */
    static final class Ownership {
        final String consumer;
        final String partition;
        final int epoch;
        final long fromNanos;
        volatile long toNanos = Long.MAX_VALUE;

        Ownership(String consumer, String partition, int epoch, long fromNanos) {
            this.consumer = consumer;
            this.partition = partition;
            this.epoch = epoch;
            this.fromNanos = fromNanos;
        }

        @Override
        public String toString() {
            return consumer + ":" + partition + "@e" + epoch + "[" + fromNanos + ","
                    + (toNanos == Long.MAX_VALUE ? "open" : Long.toString(toNanos)) + ")";
        }
    }

    TestConsumer(TransportClient client, List<InetSocketAddress> bootstrap, String group, String id, String topic,
                 int pingIntervalMs, int maxPingRetries) {
        this(client, bootstrap, group, id, new StaticSubscription(List.of(new TopicStreams(topic, 1))),
                pingIntervalMs, maxPingRetries);
    }

    /** A consumer registering with any subscription, a wildcard one included. */
    TestConsumer(TransportClient client, List<InetSocketAddress> bootstrap, String group, String id,
                 Subscription subscription, int pingIntervalMs, int maxPingRetries) {
        this.client = client;
        this.bootstrap = List.copyOf(bootstrap);
        this.group = group;
        this.id = id;
        this.subscription = subscription;
        this.pingIntervalMs = pingIntervalMs;
        this.maxPingRetries = (short) maxPingRetries;
        this.exec = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "test-consumer-" + id);
            t.setDaemon(true);
            return t;
        });
    }

    TestConsumer start() {
        exec.execute(this::discover);
        exec.scheduleWithFixedDelay(this::checkLease, pingIntervalMs / 2, pingIntervalMs / 2, TimeUnit.MILLISECONDS);
        return this;
    }

    String id() {
        return id;
    }

    int highestEpoch() {
        return highestEpoch;
    }

    int generation() {
        return generation;
    }

    /** The partitions of the last Start, null when stopped or not started. */
    List<PartitionAssignment> assigned() {
        return assigned;
    }

    int registrations() {
        return registrations;
    }

    /** Every interval this consumer held a partition, in order of Start. */
    List<Ownership> ownership() {
        return List.copyOf(ownership);
    }

    /** Stop requests answered so far (counted when received). */
    int stopsReceived() {
        return stopsReceived;
    }

    /** Answers every later Stop this much late (the partitions are released at once, only the answer waits). */
    void delayStopResponses(long delayMs) {
        stopResponseDelayMs = delayMs;
    }

    private void releaseAll() {
        long now = System.nanoTime();
        for (Ownership o : open.values()) {
            o.toNanos = now;
        }
        open.clear();
    }

    /** Stops answering anything, never rediscovers: a failed process whose socket stays open. */
    void die() {
        dead = true;
    }

    @Override
    public void close() {
        closed = true;
        post(() -> {
            releaseAll();
            if (current != null) {
                current.close();
            }
        });
        exec.shutdown();
    }

    private long nowMs() {
        return System.nanoTime() / 1_000_000;
    }

    private boolean gone() {
        return dead || closed;
    }

    // ------------------------------------------------------------------ discovery and registration

    private void retryDiscoverLater() {
        if (!gone()) {
            try {
                exec.schedule(this::discover, 50, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // closed
            }
        }
    }

    private void discover() {
        if (gone() || current != null) {
            return;
        }
        InetSocketAddress address = bootstrap.get(nextBootstrap++ % bootstrap.size());
        onLoop(client.connect(address.getHostString(), address.getPort(), new Handler()), (c, error) -> {
            if (error != null) {
                retryDiscoverLater();
                return;
            }
            onLoop(c.request(new ConsultRequest(), 2_000), (response, e2) -> {
                c.close();
                if (e2 != null || !(response instanceof ConsultResponse consult)
                        || consult.errorCode() != ErrorCode.NONE || consult.coordinatorId() == ConsultResponse.NONE) {
                    retryDiscoverLater();
                    return;
                }
                highestEpoch = Math.max(highestEpoch, consult.coordinatorEpoch());
                Optional<BrokerInfo> coordinator = consult.brokers().stream()
                        .filter(b -> b.id() == consult.coordinatorId()).findFirst();
                if (coordinator.isEmpty()) {
                    retryDiscoverLater();
                    return;
                }
                register(coordinator.get());
            });
        });
    }

    private void register(BrokerInfo coordinator) {
        if (gone() || current != null) {
            return;
        }
        onLoop(client.connect(coordinator.host(), coordinator.port(), new Handler()), (c, error) -> {
            if (error != null) {
                retryDiscoverLater();
                return;
            }
            current = c;
            RegisterRequest register = new RegisterRequest(group, id, subscription, false,
                    OffsetReset.SMALLEST, pingIntervalMs, maxPingRetries, highestEpoch);
            onLoop(c.request(register, 2_000), (response, e2) -> {
                if (c != current) {
                    return;
                }
                if (e2 == null && response instanceof RegisterResponse r && r.errorCode() == ErrorCode.NONE) {
                    highestEpoch = Math.max(highestEpoch, r.coordinatorEpoch());
                    lastGrantMs = nowMs();
                    registrations++;
                    return;
                }
                drop(); // NOT_COORDINATOR, COORDINATOR_NOT_READY, timeout: rediscover
            });
        });
    }

    /** Stop everything, close the connection, rediscover (DESIGN §6: lease expiry or closed connection). */
    private void drop() {
        releaseAll();
        assigned = null;
        Connection c = current;
        current = null;
        lastGrantMs = 0;
        if (c != null) {
            c.close();
        }
        retryDiscoverLater();
    }

    private void checkLease() {
        if (gone() || current == null || lastGrantMs == 0) {
            return;
        }
        long leaseMs = (long) pingIntervalMs * (maxPingRetries + 1);
        if (nowMs() - lastGrantMs > leaseMs) {
            drop();
        }
    }

    // ------------------------------------------------------------------ commands from the coordinator

    private void onCommand(Connection c, int correlationId, Request request) {
        if (gone() || c != current) {
            return;
        }
        int epoch = request instanceof PingRequest p ? p.coordinatorEpoch()
                : request instanceof StopRequest s ? s.coordinatorEpoch()
                : request instanceof StartRequest s ? s.coordinatorEpoch() : Integer.MAX_VALUE;
        if (epoch < highestEpoch) {
            c.respond(correlationId, request instanceof PingRequest ? PingResponse.error(ErrorCode.STALE_COORDINATOR_EPOCH)
                    : request instanceof StopRequest ? StopResponse.error(ErrorCode.STALE_COORDINATOR_EPOCH)
                    : StartResponse.error(ErrorCode.STALE_COORDINATOR_EPOCH));
            return;
        }
        highestEpoch = Math.max(highestEpoch, epoch);
        if (request instanceof PingRequest) {
            lastGrantMs = nowMs();
            c.respond(correlationId, new PingResponse(ErrorCode.NONE, generation, null));
        } else if (request instanceof StopRequest) {
            releaseAll();
            assigned = null;
            stopsReceived++;
            long delay = stopResponseDelayMs;
            if (delay > 0) {
                try {
                    exec.schedule(() -> c.respond(correlationId, new StopResponse(ErrorCode.NONE, null)), delay,
                            TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException e) {
                    // closed
                }
            } else {
                c.respond(correlationId, new StopResponse(ErrorCode.NONE, null));
            }
        } else if (request instanceof StartRequest s) {
            lastGrantMs = nowMs();
            generation = s.generation();
            releaseAll();
            long now = System.nanoTime();
            for (PartitionAssignment a : s.assigned()) {
                Ownership o = new Ownership(id, a.topic() + "/" + a.partition(), epoch, now);
                open.put(o.partition, o);
                ownership.add(o);
            }
            assigned = List.copyOf(new ArrayList<>(s.assigned()));
            c.respond(correlationId, StartResponse.ok());
        }
    }

    private <T> void onLoop(CompletableFuture<T> future, java.util.function.BiConsumer<T, Throwable> action) {
        future.whenComplete((value, error) -> post(() -> action.accept(value, error)));
    }

    /** Runs on the consumer's thread; dropped once the consumer is closed. */
    private void post(Runnable r) {
        try {
            exec.execute(r);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    private final class Handler implements ConnectionHandler {
        @Override
        public void onRequest(Connection connection, int correlationId, Request request) {
            post(() -> onCommand(connection, correlationId, request));
        }

        @Override
        public void onClose(Connection connection, Optional<Throwable> cause) {
            post(() -> {
                if (connection == current && !gone()) {
                    drop();
                }
            });
        }
    }
}
