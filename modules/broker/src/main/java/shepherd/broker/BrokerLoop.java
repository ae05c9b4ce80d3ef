package shepherd.broker;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.coordination.Coordinator;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent;
import shepherd.coordination.GroupView;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.Request;
import shepherd.transport.Connection;
import shepherd.transport.ConnectionHandler;
import shepherd.zookeeper.EffectRouter;

/**
 * The broker's event loop: one thread owns the {@link Coordinator} and executes its effects; Netty, ZooKeeper and
 * timer threads only enqueue events (DESIGN §2, docs/architecture.md §3). Each effect goes where its type says
 * ({@link CoordinatorEffect.ZooKeeper} to the adapter, {@link CoordinatorEffect.Network} to the connections,
 * {@link CoordinatorEffect.Timer} to the timers, {@link CoordinatorEffect.Observation} to the logs and metrics). Handling one event at a time is what
 * makes "stop commanding at once" on Disconnected true: the next event already sees it.
 *
 * <p><b>Logging.</b> The loop is the one place that sees every event and effect in order, so it logs the cluster's
 * story once, at INFO, as {@code key=value} fields: elections and observed coordinators, session changes, role
 * changes with the epoch, handover, the brokers list, the core's Notices, and per rebalance its outcome (generation,
 * members, partitions) as the core observes it ({@code GenerationReached}, {@code RebalanceEnded}): the loop never
 * asks the core what happened.
 *
 * <p><b>Metrics.</b> For the same reason the loop feeds {@link BrokerMetrics}: each rebalance's outcome and duration
 * where it is logged, missed pings from the kind of the core's Notices, failed members from {@code MemberRemoved}, session events, and the
 * latency of every ZooKeeper answer (its {@code sentAtMs} was stamped with this loop's clock). The gauges (epoch,
 * groups, members) are set by {@link #refreshMetrics()}, on the loop thread, when a scrape asks.
 */
public final class BrokerLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerLoop.class);
    private static final Object STOP = new Object();

    private final Coordinator core;
    private final LongSupplier clockMs;
    private final ZooKeeperPort zooKeeper;
    private final long requestTimeoutMs;
    private final int brokerId;
    private final BrokerMetrics metrics;
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final ScheduledExecutorService timerThread;
    private final LoopTimers timers;
    /** Each effect to where it goes: ZooKeeper, the connections, the timers, or the logs and metrics. */
    private final EffectRouter router;
    private final Thread thread;
    // Loop-thread state:
    private final Map<Long, Connection> connections = new HashMap<>();
    private final CompletableFuture<Integer> handedOver = new CompletableFuture<>();
    /** When each group's run began (its first Assigned since its last RebalanceEnded), for the duration logged. */
    private final Map<String, Long> runStartedMs = new HashMap<>();
    private List<Integer> brokersLogged = List.of();
    private int leaderLogged = Integer.MIN_VALUE;
    private int leaderEpochLogged = Integer.MIN_VALUE;

    public BrokerLoop(Coordinator core, LongSupplier clockMs, ZooKeeperPort zooKeeper, long requestTimeoutMs) {
        this(core, clockMs, zooKeeper, requestTimeoutMs, -1);
    }

    /** @param brokerId only for thread names, log lines and the metrics' tag */
    public BrokerLoop(Coordinator core, LongSupplier clockMs, ZooKeeperPort zooKeeper, long requestTimeoutMs,
                      int brokerId) {
        this(core, clockMs, zooKeeper, requestTimeoutMs, brokerId, new BrokerMetrics(brokerId));
    }

    /** @param metrics where the loop reports rebalances, misses, failures, session events and ZooKeeper latency */
    public BrokerLoop(Coordinator core, LongSupplier clockMs, ZooKeeperPort zooKeeper, long requestTimeoutMs,
                      int brokerId, BrokerMetrics metrics) {
        this.core = core;
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.clockMs = clockMs;
        this.zooKeeper = zooKeeper;
        this.router = new EffectRouter(zooKeeper::execute, this::network, this::timer, this::observe);
        this.requestTimeoutMs = requestTimeoutMs;
        this.brokerId = brokerId;
        String suffix = brokerId < 0 ? "" : "-" + brokerId;
        this.timerThread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "shepherd-broker-timers" + suffix);
            t.setDaemon(true);
            return t;
        });
        this.timers = new LoopTimers(timerThread, queue::add);
        this.thread = new Thread(this::loop, "shepherd-broker-loop" + suffix);
    }

    public void start() {
        thread.start();
        enqueue(new CoordinatorEvent.Boot());
    }

    /** Thread-safe: the only way into the core. */
    public void enqueue(CoordinatorEvent event) {
        queue.add(event);
    }

    /** Runs {@code action} on the loop thread (status queries, tests). Never completes once the loop is closed. */
    public <T> CompletableFuture<T> call(Function<Coordinator, T> action) {
        CompletableFuture<T> result = new CompletableFuture<>();
        queue.add((Runnable) () -> {
            try {
                result.complete(action.apply(core));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /**
     * Sets the metrics' gauges from the core, on the loop thread (the only one that may read it). Completes once
     * done; never completes once the loop is closed, so callers bound their wait.
     */
    public CompletableFuture<Void> refreshMetrics() {
        return call(c -> {
            SortedMap<String, GroupView> groups = c.groups();
            int members = groups.values().stream().mapToInt(g -> g.members().size()).sum();
            boolean coordinating = c.role() != Coordinator.Role.FOLLOWER && c.role() != Coordinator.Role.CLOSED;
            metrics.coordinatorState(c.epoch(), coordinating, groups.size(), members);
            return null;
        });
    }

    /** Completes with the epoch once a graceful handover has finished. */
    public CompletableFuture<Integer> handedOver() {
        return handedOver;
    }

    /**
     * Consumers' connections: opens, requests and closes become events. The open tells the core where the
     * connection comes from ({@link CoordinatorEvent.ConnectionPeer}), before its first request (the transport
     * calls {@code onOpen} first), so a Register on it is described with its host.
     */
    public ConnectionHandler connectionHandler() {
        return new ConnectionHandler() {
            @Override
            public void onOpen(Connection connection) {
                queue.add((Runnable) () -> connections.put(connection.id(), connection));
                enqueue(new CoordinatorEvent.ConnectionPeer(connection.id(), peerHost(connection.remoteAddress())));
            }

            @Override
            public void onRequest(Connection connection, int correlationId, Request request) {
                queue.add((Runnable) () -> connections.putIfAbsent(connection.id(), connection));
                enqueue(new CoordinatorEvent.RequestReceived(connection.id(), correlationId, request));
            }

            @Override
            public void onClose(Connection connection, Optional<Throwable> cause) {
                enqueue(new CoordinatorEvent.ConnectionClosed(connection.id()));
                queue.add((Runnable) () -> connections.remove(connection.id()));
            }
        };
    }

    /**
     * A connection's peer as the core keeps it: the numeric IP address without the port. Numeric because a reverse
     * lookup would block this loop on DNS; without the port because it is the client's ephemeral port, new at every
     * reconnect (the consumer id tells members on one machine apart). Empty when the transport has no IP address.
     */
    static String peerHost(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            InetAddress ip = inet.getAddress();
            return ip != null ? ip.getHostAddress() : inet.getHostString();
        }
        return "";
    }

    private void loop() {
        while (true) {
            Object next;
            try {
                next = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (next == STOP) {
                return;
            }
            try {
                if (next instanceof Runnable r) {
                    r.run();
                } else if (next instanceof LoopTimers.Due due) {
                    if (timers.fired(due)) {
                        handle(new CoordinatorEvent.TimerFired(due.timer()));
                    }
                } else {
                    handle((CoordinatorEvent) next);
                }
            } catch (RuntimeException e) {
                // A bug, not an outcome: log it with the event, keep serving the other groups.
                LOG.error("event failed broker={} event={}", brokerId, next, e);
            }
        }
    }

    private void handle(CoordinatorEvent event) {
        Coordinator.Role roleBefore = core.role();
        int epochBefore = core.epoch();
        logEvent(event);
        meter(event);
        List<CoordinatorEffect> effects = core.onEvent(event, clockMs.getAsLong());
        router.executeAll(effects);
        if (core.role() != roleBefore || core.epoch() != epochBefore) {
            LOG.info("role changed broker={} from={} to={} epoch={} previousEpoch={}", brokerId, roleBefore,
                    core.role(), core.epoch(), epochBefore);
            if (core.role() == Coordinator.Role.FOLLOWER) {
                runStartedMs.clear(); // the epoch's groups are forgotten: their runs end with no observation
            }
        }
    }

    private void logEvent(CoordinatorEvent event) {
        if (event instanceof CoordinatorEvent.ElectionWon won) {
            LOG.info("election won broker={} epoch={} previousHandedOver={}", brokerId, won.epoch(),
                    won.previousHandedOver());
        } else if (event instanceof CoordinatorEvent.LeaderObserved seen) {
            if (seen.brokerId() != leaderLogged || seen.epoch() != leaderEpochLogged) {
                leaderLogged = seen.brokerId();
                leaderEpochLogged = seen.epoch();
                LOG.info("coordinator observed broker={} coordinator={} epoch={}", brokerId, seen.brokerId(),
                        seen.epoch());
            }
        } else if (event instanceof CoordinatorEvent.ZkDisconnected) {
            LOG.warn("zookeeper disconnected broker={} role={} epoch={} (commanding stops)", brokerId, core.role(),
                    core.epoch());
        } else if (event instanceof CoordinatorEvent.ZkSyncConnected) {
            LOG.info("zookeeper reconnected broker={} role={} epoch={} (same session)", brokerId, core.role(),
                    core.epoch());
        } else if (event instanceof CoordinatorEvent.ZkExpired) {
            LOG.warn("zookeeper session expired broker={} role={} epoch={} (reset, running for election again)",
                    brokerId, core.role(), core.epoch());
        } else if (event instanceof CoordinatorEvent.HandoverRequested) {
            LOG.info("handover requested broker={} role={} epoch={}", brokerId, core.role(), core.epoch());
        } else if (event instanceof CoordinatorEvent.BrokersChanged changed) {
            List<Integer> ids = changed.brokers().stream().map(BrokerInfo::id).sorted().toList();
            if (!ids.equals(brokersLogged)) {
                brokersLogged = ids;
                LOG.info("brokers changed broker={} brokers={}", brokerId, ids);
            }
        }
    }

    /** Session events, and the latency of ZooKeeper's answers (the reconnect's stamp is not a request's). */
    private void meter(CoordinatorEvent event) {
        if (event instanceof CoordinatorEvent.ZkDisconnected) {
            metrics.sessionEvent(BrokerMetrics.SessionEvent.DISCONNECTED);
        } else if (event instanceof CoordinatorEvent.ZkSyncConnected) {
            metrics.sessionEvent(BrokerMetrics.SessionEvent.RECONNECTED);
        } else if (event instanceof CoordinatorEvent.ZkExpired) {
            metrics.sessionEvent(BrokerMetrics.SessionEvent.EXPIRED);
        } else if (event instanceof CoordinatorEvent.ZkAnswer answer) {
            zooKeeperOp(answer).ifPresent(op -> metrics.zooKeeperAnswered(op,
                    clockMs.getAsLong() - answer.sentAtMs()));
        }
    }

    /** Which request an answer closes; empty for the reconnect, whose stamp is the disconnection's. */
    static Optional<BrokerMetrics.ZooKeeperOp> zooKeeperOp(CoordinatorEvent.ZkAnswer answer) {
        if (answer instanceof CoordinatorEvent.ElectionWon) {
            return Optional.of(BrokerMetrics.ZooKeeperOp.ELECTION);
        } else if (answer instanceof CoordinatorEvent.ZkSynced) {
            return Optional.of(BrokerMetrics.ZooKeeperOp.KEEPALIVE);
        } else if (answer instanceof CoordinatorEvent.ZkWriteDone || answer instanceof CoordinatorEvent.ZkWriteFenced) {
            return Optional.of(BrokerMetrics.ZooKeeperOp.WRITE);
        } else if (answer instanceof CoordinatorEvent.ZkSyncConnected) {
            return Optional.empty();
        }
        return Optional.of(BrokerMetrics.ZooKeeperOp.READ); // TopicsRead, TopicRead, GroupsRead, GroupRead
    }

    private void network(CoordinatorEffect.Network effect) {
        if (effect instanceof CoordinatorEffect.SendRequest s) {
            send(s);
        } else if (effect instanceof CoordinatorEffect.Respond r) {
            Connection c = connections.get(r.connectionId());
            if (c != null && c.isOpen()) {
                try {
                    c.respond(r.correlationId(), r.response());
                } catch (IllegalStateException e) {
                    LOG.debug("response on connection {} dropped: {}", r.connectionId(), e.getMessage());
                }
            }
        } else if (effect instanceof CoordinatorEffect.CloseConnection c) {
            Connection connection = connections.get(c.connectionId());
            if (connection != null) {
                connection.close();
            }
        }
    }

    private void timer(CoordinatorEffect.Timer effect) {
        if (effect instanceof CoordinatorEffect.SetTimer t) {
            timers.arm(t.timer(), t.deadlineMs() - clockMs.getAsLong());
        } else if (effect instanceof CoordinatorEffect.CancelTimer t) {
            timers.cancel(t.timer());
        } else if (effect instanceof CoordinatorEffect.CancelAllTimers) {
            timers.cancelAll();
        }
    }

    /** What the core reports it did: logged, counted, and the handover's completion. */
    private void observe(CoordinatorEffect.Observation effect) {
        if (effect instanceof CoordinatorEffect.Notice n) {
            notice(n);
        } else if (effect instanceof CoordinatorEffect.Assigned a) {
            runStartedMs.putIfAbsent(a.group(), clockMs.getAsLong());
            LOG.debug("assignment broker={} group={} assignment={}", brokerId, a.group(), a.assignment());
        } else if (effect instanceof CoordinatorEffect.GenerationReached g) {
            LOG.info("group generation broker={} epoch={} group={} generation={} members={}", brokerId,
                    core.epoch(), g.group(), g.generation(), g.members());
        } else if (effect instanceof CoordinatorEffect.RebalanceEnded r) {
            Long started = runStartedMs.remove(r.group());
            long durationMs = started == null ? 0 : clockMs.getAsLong() - started;
            metrics.rebalanceEnded(r.stable() ? BrokerMetrics.RebalanceOutcome.STABLE
                    : BrokerMetrics.RebalanceOutcome.RETRYING, durationMs);
            LOG.info("rebalance ended broker={} epoch={} group={} generation={} outcome={} durationMs={} members={}"
                    + " partitions={}", brokerId, core.epoch(), r.group(), r.generation(),
                    r.stable() ? "stable" : "retrying", durationMs, r.members(), r.partitions());
        } else if (effect instanceof CoordinatorEffect.MemberRemoved m) {
            if (m.failed()) {
                metrics.consumerFailed();
            }
        } else if (effect instanceof CoordinatorEffect.HandedOver h) {
            LOG.info("handed over broker={} epoch={}", brokerId, h.epoch());
            handedOver.complete(h.epoch());
        }
    }

    /** A missed ping is routine (one per interval of a dead member): counted, logged at DEBUG only. */
    private void notice(CoordinatorEffect.Notice n) {
        switch (n.kind()) {
            case PING_MISSED -> {
                metrics.pingMissed();
                LOG.debug("notice broker={} epoch={}: {}", brokerId, core.epoch(), n.message());
                return;
            }
            case MEMBER_FAILED, OTHER -> { }
        }
        LOG.info("notice broker={} epoch={}: {}", brokerId, core.epoch(), n.message());
    }

    private void send(CoordinatorEffect.SendRequest s) {
        Connection c = connections.get(s.connectionId());
        if (c == null) {
            return; // closed: ConnectionClosed is (or was) on the queue
        }
        try {
            c.request(s.request(), requestTimeoutMs).whenComplete((response, error) -> {
                if (response != null) {
                    enqueue(new CoordinatorEvent.ResponseReceived(s.connectionId(), s.requestId(), response));
                } // a failure needs no event: the core's own timers count the missing answer
            });
        } catch (RuntimeException e) {
            // e.g. a Start too large for the frame limit: the core counts it as unanswered, like a refusal.
            LOG.warn("request not sent broker={} connection={} api={}: {}", brokerId, s.connectionId(),
                    s.request().apiKey(), e.toString());
        }
    }

    /** Stops the loop after the events already queued, and the timers. Idempotent. */
    @Override
    public void close() {
        queue.add(STOP);
        if (thread.isAlive() && Thread.currentThread() != thread) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        timerThread.shutdownNow();
    }
}
