package shepherd.benchmarks.e2e;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.OffsetReset;
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
import shepherd.protocol.TopicStreams;
import shepherd.transport.Connection;
import shepherd.transport.ConnectionHandler;
import shepherd.transport.TransportClient;
import shepherd.transport.TransportConfig;

/**
 * Many simulated consumers on one {@link TransportClient}: each speaks the wire protocol as the consumer's session
 * core does, minus fetching — Register (retried while the coordinator is not ready, and at the other broker when it
 * is not the coordinator or the connection closes), then answer every Ping, Stop and Start at once. Cheap enough
 * that 10,000 of them fit in the harness's JVM, so the coordinator's broker, in a JVM of its own, is what is
 * measured.
 */
final class SimConsumers implements AutoCloseable {
    private static final long RETRY_MS = 100;

    /** One simulated consumer; its fields are written on its connection's I/O thread, read by the harness. */
    final class Sim implements ConnectionHandler {
        final String group;
        final String id;
        final String topic;
        private int brokerIndex;
        volatile int highestEpoch = -1;
        volatile int startedEpoch = -1;
        volatile int startedGeneration = -1;
        volatile int startedPartitions;
        volatile boolean stopped;
        volatile long startedNanos;

        Sim(String group, String id, String topic, int brokerIndex) {
            this.group = group;
            this.id = id;
            this.topic = topic;
            this.brokerIndex = brokerIndex;
        }

        void connect() {
            if (closing) {
                return;
            }
            client.connect(brokers.get(brokerIndex % brokers.size()), this).whenComplete((c, e) -> {
                if (e != null) {
                    retryElsewhere();
                } else {
                    register(c);
                }
            });
        }

        private void retryElsewhere() {
            brokerIndex++;
            timer.schedule(this::connect, RETRY_MS, TimeUnit.MILLISECONDS);
        }

        private void register(Connection c) {
            RegisterRequest r = new RegisterRequest(group, id, new StaticSubscription(List.of(new TopicStreams(topic,
                    1))), false, OffsetReset.SMALLEST, pingIntervalMs, (short) maxPingRetries, highestEpoch);
            c.request(r).whenComplete((response, e) -> {
                if (e != null) {
                    c.close(); // onClose reconnects
                    return;
                }
                RegisterResponse rr = (RegisterResponse) response;
                highestEpoch = Math.max(highestEpoch, rr.coordinatorEpoch());
                if (rr.errorCode() == ErrorCode.NONE) {
                    registrations.incrementAndGet();
                } else if (rr.errorCode() == ErrorCode.NOT_COORDINATOR) {
                    c.close();
                } else {
                    timer.schedule(() -> register(c), RETRY_MS, TimeUnit.MILLISECONDS);
                }
            });
        }

        @Override
        public void onRequest(Connection c, int correlationId, Request request) {
            if (request instanceof PingRequest p) {
                pings.incrementAndGet();
                highestEpoch = Math.max(highestEpoch, p.coordinatorEpoch());
                c.respond(correlationId, new PingResponse(ErrorCode.NONE, startedGeneration, null));
            } else if (request instanceof StopRequest s) {
                highestEpoch = Math.max(highestEpoch, s.coordinatorEpoch());
                stopped = true;
                c.respond(correlationId, new StopResponse(ErrorCode.NONE, null));
            } else if (request instanceof StartRequest s) {
                highestEpoch = Math.max(highestEpoch, s.coordinatorEpoch());
                startedEpoch = s.coordinatorEpoch();
                startedGeneration = s.generation();
                startedPartitions = s.assigned().size();
                startedNanos = System.nanoTime();
                stopped = false;
                c.respond(correlationId, StartResponse.ok());
            }
        }

        @Override
        public void onClose(Connection c, Optional<Throwable> cause) {
            stopped = true; // a real consumer's lease would stop it; nothing fetches here anyway
            if (!closing) {
                retryElsewhere();
            }
        }
    }

    private final List<InetSocketAddress> brokers;
    private final int pingIntervalMs;
    private final int maxPingRetries;
    private final TransportClient client;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sim-consumers-timer");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, List<Sim>> groups = new LinkedHashMap<>();
    final AtomicLong pings = new AtomicLong();
    final AtomicLong registrations = new AtomicLong();
    private volatile boolean closing;

    SimConsumers(List<InetSocketAddress> brokers, int pingIntervalMs, int maxPingRetries, int ioThreads) {
        this.brokers = brokers;
        this.pingIntervalMs = pingIntervalMs;
        this.maxPingRetries = maxPingRetries;
        this.client = TransportClient.create(TransportConfig.defaults().withIoThreads(ioThreads));
    }

    void add(String group, String id, String topic) {
        Sim s = new Sim(group, id, topic, 0);
        groups.computeIfAbsent(group, g -> new ArrayList<>()).add(s);
        s.connect();
    }

    /** Groups whose members all fetch the same generation of an epoch above {@code afterEpoch}, covering the topic. */
    int stableGroups(int afterEpoch, int partitionsPerGroup) {
        int stable = 0;
        for (List<Sim> members : groups.values()) {
            if (stable(members, afterEpoch, partitionsPerGroup)) {
                stable++;
            }
        }
        return stable;
    }

    private static boolean stable(List<Sim> members, int afterEpoch, int partitions) {
        int epoch = members.get(0).startedEpoch;
        int generation = members.get(0).startedGeneration;
        int sum = 0;
        for (Sim s : members) {
            if (s.stopped || s.startedEpoch != epoch || s.startedGeneration != generation) {
                return false;
            }
            sum += s.startedPartitions;
        }
        return epoch > afterEpoch && sum == partitions;
    }

    int groupCount() {
        return groups.size();
    }

    /** The epoch every simulated consumer has started under, or -1 if they differ. */
    int commonEpoch() {
        int epoch = Integer.MIN_VALUE;
        for (List<Sim> members : groups.values()) {
            for (Sim s : members) {
                if (epoch == Integer.MIN_VALUE) {
                    epoch = s.startedEpoch;
                } else if (epoch != s.startedEpoch) {
                    return -1;
                }
            }
        }
        return epoch;
    }

    /** The latest Start any of them applied. */
    long lastStartNanos() {
        long last = Long.MIN_VALUE;
        for (List<Sim> members : groups.values()) {
            for (Sim s : members) {
                last = Math.max(last, s.startedNanos);
            }
        }
        return last;
    }

    @Override
    public void close() {
        closing = true;
        timer.shutdownNow();
        client.close();
    }
}
