package shepherd.consumer.internal;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.consumer.AllKnownBrokersNotAvailableException;
import shepherd.consumer.CommitFailedException;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.ConsumerEvent;
import shepherd.consumer.ConsumerStatus;
import shepherd.consumer.ConsumerTimeoutException;
import shepherd.consumer.PartitionLogs;
import shepherd.consumer.session.ConsumerSession;
import shepherd.consumer.session.SessionConfig;
import shepherd.consumer.session.SessionEffect;
import shepherd.consumer.session.SessionEvent;
import shepherd.consumer.session.SessionState;
import shepherd.consumer.session.SessionStatus;
import shepherd.consumer.session.Step;
import shepherd.consumer.session.TimerKey;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.OffsetCommitRequest;
import shepherd.protocol.OffsetCommitResponse;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PartitionResult;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.protocol.StartRequest;

import shepherd.protocol.Subscription;
import shepherd.transport.Connection;
import shepherd.transport.ConnectionHandler;
import shepherd.transport.TransportClient;
import shepherd.transport.TransportConfig;

/**
 * The network loop: one thread that owns the session state and drives the sans-I/O {@link ConsumerSession}
 * unchanged (DESIGN §6). It is the consumer's own transport client's single I/O thread
 * ({@link TransportClient#loop()}): a frame read from the coordinator becomes an event on the thread that read it,
 * and an answer is written by the thread that decided it, with no hand-off either way (on a loop of its own, each
 * Stop, Start and Ping would cost two thread wake-ups more). Timers, fetchers and application calls
 * only {@link #post} work onto it; it never blocks and never runs application or partition-source code. Once
 * {@link #close()} or {@link #halt()} has begun, nothing of this consumer runs on it any more. Each event goes through
 * {@code core.onEvent}; the effects of the step are executed in list order, and anything they lead to (a response,
 * a closed socket, fetchers confirmed stopped) comes back as a later event.
 *
 * <p>Connections are identified by object, not broker id: an event of a connection that is no longer the current
 * one (a late close of the previous coordinator connection, say) is dropped here, since the core only knows broker
 * ids and would mistake it for the current one.
 */
public final class ConsumerRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerRuntime.class);
    /**
     * How long the threads of fetchers a Stop closed may stay in their reads waiting for the next Start to hand them
     * its fetchers (FetcherThreads). A Start follows its Stop within milliseconds unless a member failed; past this,
     * the reads end and the threads go idle.
     */
    static final long LINGER_MS = 1_000;

    private final ConsumerConfig config;
    private final PartitionLogs logs;
    private final LongSupplier clockMs;
    private final TransportClient client;
    private final ScheduledExecutorService loop;
    private final ConsumerSession core = new ConsumerSession();
    private final TakenOffsets taken = new TakenOffsets();
    private final LeaseGate leaseGate;
    private final Map<String, String> lastConsultFailures = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> registered = new CompletableFuture<>();
    private final CompletableFuture<SessionState.Termination> terminated = new CompletableFuture<>();

    // Loop-thread state.
    private SessionState state = SessionState.unstarted();
    private volatile StreamRouter router;
    private Connection current;
    private int currentBrokerId = SessionState.NONE;
    private long connectAttempt;
    private final Map<TimerKey, ScheduledFuture<?>> timers = new EnumMap<>(TimerKey.class);
    // Copy-on-write: halt() stops them from an application thread while the loop may be gone mid-task.
    private final List<Fetcher> fetchers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private int registrations;
    private String termination;

    private int fetchingEpoch = SessionState.NONE;
    private final java.util.concurrent.ExecutorService events; // null without a listener
    /** The fetchers' threads, reused across generations; each ends after a minute unused. */
    private final FetcherThreads fetcherThreads;
    /** Ends the reads of the threads of fetchers a Stop closed, if no Start has taken them by then. */
    private ScheduledFuture<?> lingerEnd;

    /** Set by close() and halt(): the loop (the transport's) runs nothing of this consumer's any more. */
    private volatile boolean loopStopped;
    private volatile boolean consultAnswered;
    /**
     * What {@link #status()} is built from, as of the loop's last step. Published, not built, after every step: the
     * status lists the assigned partitions by name, sorted, which on every ping of every consumer would be a stream,
     * a sort and a string per partition that nobody asked for.
     */
    private volatile Published published;

    public ConsumerRuntime(ConsumerConfig config, PartitionLogs logs, LongSupplier clockMs) {
        this.config = config;
        this.logs = logs;
        this.clockMs = clockMs;
        this.leaseGate = new LeaseGate(clockMs);
        this.client = TransportClient.create(TransportConfig.defaults().withIoThreads(1)
                .withRequestTimeoutMs(config.requestTimeoutMs())
                .withConnectTimeoutMs(Math.min(config.requestTimeoutMs(), TransportConfig.CONNECT_TIMEOUT_MS_DEFAULT)));
        this.loop = client.loop();
        this.published = new Published(state, null, 0);
        this.fetcherThreads = new FetcherThreads("shepherd-fetcher-" + config.consumerId() + "-");
        this.events = config.listener().isEmpty() ? null : Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "shepherd-consumer-events-" + config.consumerId());
            t.setDaemon(true);
            return t;
        });
    }

    /** Hands an event to the listener's own thread, in order; never runs listener code here. */
    private void emit(ConsumerEvent.Kind kind, String topic, String partition, int epoch, int generation,
                      long offset, ErrorCode error, String detail) {
        if (events != null) {
            hand(List.of(new ConsumerEvent(System.nanoTime(), kind, topic, partition, epoch, generation, offset,
                    error, detail)));
        }
    }

    /**
     * Hands {@code batch} to the listener's thread as one task, in order. A Start or Stop hands its events of every
     * partition at once: one wake-up of the listener's thread instead of one per partition.
     */
    private void hand(List<ConsumerEvent> batch) {
        if (events == null || batch.isEmpty()) {
            return;
        }
        java.util.function.Consumer<ConsumerEvent> listener = config.listener().orElseThrow();
        try {
            events.execute(() -> {
                for (ConsumerEvent event : batch) {
                    try {
                        listener.accept(event);
                    } catch (RuntimeException e) {
                        LOG.warn("{}: the consumer listener failed on {}: {}", config.consumerId(), event,
                                e.toString());
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            // closed: the history ends here
        }
    }

    // ------------------------------------------------------------------ calls from application threads

    /** Begins discovery with this subscription; records go to the streams {@code router} names. */
    public void start(Subscription subscription, StreamRouter router) {
        SessionConfig sessionConfig = new SessionConfig(config.groupId(), config.consumerId(), subscription,
                config.autoCommit(), config.autoOffsetReset(), config.pingIntervalMs(),
                (short) config.maxPingRetries(), bootstrapBrokers(), config.backoffInitialMs(), config.backoffMaxMs());
        post(() -> {
            this.router = router;
            LOG.info("{} of group {} starting: {} on {}", config.consumerId(), config.groupId(), subscription,
                    config.bootstrap());
            feed(new SessionEvent.Started(sessionConfig));
        });
    }

    /**
     * The seed's "randomly pick a broker": a shuffled copy of the bootstrap list. Their ids are unknown until a
     * Consult lists them, so each gets a placeholder id below −1 (−1 means "none" in the protocol).
     */
    private List<BrokerInfo> bootstrapBrokers() {
        List<InetSocketAddress> shuffled = new ArrayList<>(config.bootstrap());
        Collections.shuffle(shuffled, new Random());
        List<BrokerInfo> out = new ArrayList<>();
        for (int i = 0; i < shuffled.size(); i++) {
            InetSocketAddress a = shuffled.get(i);
            out.add(new BrokerInfo(-2 - i, a.getHostString(), a.getPort(), "bootstrap"));
        }
        return out;
    }

    /** Asks the session to leave; completes when it is over (or was never started). */
    public CompletableFuture<SessionState.Termination> requestShutdown() {
        if (!post(() -> feed(new SessionEvent.ShutdownRequested(taken.snapshot())))) {
            terminated.complete(new SessionState.Termination(ErrorCode.NONE, "closed"));
        }
        return terminated;
    }

    /**
     * After {@link #requestShutdown} (or its timeout): stops whatever still runs, ends the streams, closes the
     * connection, the transport and the loop. Idempotent.
     */
    public void close() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (post(() -> {
            forceStop("closed");
            done.complete(null);
        })) {
            try {
                done.get(config.shutdownTimeoutMs(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("{}: the network loop did not stop in time: {}", config.consumerId(), e.toString());
            }
        }
        loopStopped = true;
        fetcherThreads.shutdownNow();
        client.close();
        closeEvents();
    }

    /** Lets the listener hear what is queued, then stops its thread. */
    private void closeEvents() {
        if (events == null) {
            return;
        }
        events.shutdown();
        try {
            if (!events.awaitTermination(config.shutdownTimeoutMs(), TimeUnit.MILLISECONDS)) {
                LOG.warn("{}: the consumer listener did not finish in time", config.consumerId());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A crash as the coordinator sees it: the sockets close, nothing more is sent or answered, no Leave. The
     * fetchers stop and the streams end, as the process they belong to would.
     */
    public void halt() {
        terminated.complete(new SessionState.Termination(ErrorCode.NONE, "halted"));
        loopStopped = true;
        client.close();
        List<Fetcher> stopped = List.copyOf(fetchers); // racy reads of loop state are fine: the loop is gone
        stopped.forEach(Fetcher::close);
        fetcherThreads.shutdownNow();
        if (router != null) {
            router.all().forEach(q -> {
                q.clear();
                q.end();
            });
        }
        emitStopped(stopped);
        closeEvents();
    }

    /** Sends OffsetCommit with the offsets taken so far; completes once the coordinator wrote them. */
    public CompletableFuture<Void> commit() {
        CompletableFuture<Void> result = new CompletableFuture<>();
        if (!post(() -> commitOnLoop(result))) {
            result.completeExceptionally(new CommitFailedException(ErrorCode.UNKNOWN, "the consumer is shut down"));
        }
        return result;
    }

    /** Waits until the consumer registered once; see {@link shepherd.consumer.ShepherdConsumer#awaitRegistered}. */
    public void awaitRegistered(long timeoutMs) throws InterruptedException {
        try {
            registered.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            if (!consultAnswered) {
                throw new AllKnownBrokersNotAvailableException("no broker of " + config.bootstrap()
                        + " answered within " + timeoutMs + " ms", new TreeMap<>(lastConsultFailures));
            }
            throw new ConsumerTimeoutException("not registered within " + timeoutMs + " ms; now " + status());
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        }
    }

    /** The session as of its last event, with the consumed offsets as of now (they move with every take). */
    public ConsumerStatus status() {
        Published p = published;
        SessionState s = p.state();
        List<String> assigned = s.status() != SessionStatus.FETCHING || s.assignment() == null ? List.of()
                : s.assignment().stream().map(a -> a.topic() + "/" + a.partition()).sorted().toList();
        String name = p.termination() != null || s.terminated() ? "TERMINATED" : s.status().name();
        int coordinator = s.coordinator() == null ? SessionState.NONE : s.coordinator().id();
        return new ConsumerStatus(config.groupId(), config.consumerId(), name, coordinator, s.highestEpochSeen(),
                s.generation(), assigned, consumedOffsets(), p.registrations(), p.termination());
    }

    /** The loop's state for {@link #status()}: immutable, published whole. */
    private record Published(SessionState state, String termination, int registrations) {}

    private Map<String, Long> consumedOffsets() {
        Map<String, Long> offsets = new TreeMap<>();
        for (PartitionOffset o : taken.snapshot()) {
            offsets.put(o.topic() + "/" + o.partition(), o.offset());
        }
        return offsets;
    }

    TakenOffsets takenOffsets() {
        return taken;
    }

    LeaseGate leaseGate() {
        return leaseGate;
    }

    // ------------------------------------------------------------------ the loop

    private boolean post(Runnable task) {
        if (loopStopped) {
            return false;
        }
        try {
            loop.execute(() -> {
                if (loopStopped) {
                    return; // closed or halted: nothing more runs, as on a loop shut down
                }
                try {
                    task.run();
                } catch (RuntimeException e) {
                    // A bug of ours: log it with the state, keep the loop alive for shutdown.
                    LOG.error("{}: network loop task failed in {}", config.consumerId(), state, e);
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private void feed(SessionEvent event) {
        if (state.terminated()) {
            return;
        }
        SessionStatus before = state.status();
        Step step = core.onEvent(state, event, clockMs.getAsLong());
        state = step.next();
        if (before == SessionStatus.REGISTERING && state.status() == SessionStatus.REGISTERED) {
            registrations++;
            registered.complete(null);
        }
        if (before != state.status() && !state.terminated()) {
            emit(ConsumerEvent.Kind.STATE_CHANGED, null, null, state.highestEpochSeen(), state.generation(), -1,
                    ErrorCode.NONE, before + "->" + state.status());
            LOG.info("{} of group {}: {} -> {} on {} (coordinator {}, epoch {}, generation {})", config.consumerId(),
                    config.groupId(), before, state.status(), event.getClass().getSimpleName(),
                    state.coordinator() == null ? "none" : state.coordinator().id(), state.highestEpochSeen(),
                    state.generation());
        }
        for (SessionEffect effect : step.effects()) {
            execute(effect);
        }
        leaseGate.set(state.hasLease() ? state.leaseDeadlineMs() : Long.MAX_VALUE);
        published = new Published(state, termination, registrations);
    }

    /** One case per effect (its order within the step is the core's). */
    private void execute(SessionEffect effect) {
        if (effect instanceof SessionEffect.SendConsult e) {
            sendConsult(e.broker());
        } else if (effect instanceof SessionEffect.Connect e) {
            connect(e.coordinator());
        } else if (effect instanceof SessionEffect.SendRegister e) {
            requestOfCoordinator(e.request(), RegisterResponse.class, SessionEvent.RegisterAnswered::new);
        } else if (effect instanceof SessionEffect.Respond e) {
            if (current != null) {
                current.respond(e.correlationId(), e.response());
            }
            if (e.response().errorCode() != ErrorCode.NONE) {
                emit(ConsumerEvent.Kind.COMMAND_REJECTED, null, null, state.highestEpochSeen(), state.generation(),
                        -1, e.response().errorCode(), e.response().apiKey().name());
            }
        } else if (effect instanceof SessionEffect.StartFetchers e) {
            startFetchers(e.generation(), e.assigned());
        } else if (effect instanceof SessionEffect.StopFetchers e) {
            stopFetchers();
            List<PartitionOffset> last = taken.snapshot();
            post(() -> feed(new SessionEvent.FetchersStopped(e.generation(), last)));
        } else if (effect instanceof SessionEffect.SetTimer e) {
            setTimer(e.key(), e.deadlineMs());
        } else if (effect instanceof SessionEffect.CancelTimer e) {
            cancelTimer(e.key());
        } else if (effect instanceof SessionEffect.CloseConnection) {
            closeCurrent();
        } else if (effect instanceof SessionEffect.SendLeave e) {
            requestOfCoordinator(e.request(), LeaveResponse.class, SessionEvent.LeaveAnswered::new);
        } else if (effect instanceof SessionEffect.Terminate e) {
            onTerminate(e.error(), e.reason());
        } else {
            throw new IllegalStateException("unknown effect " + effect);
        }
    }

    // ------------------------------------------------------------------ effects

    /** A one-shot connection: connect, Consult, close (seed consumerStartup step 1). */
    private void sendConsult(BrokerInfo broker) {
        String address = broker.host() + ":" + broker.port();
        client.connect(broker.host(), broker.port(), IGNORE_REQUESTS).whenComplete((connection, error) -> {
            if (error != null) {
                post(() -> consultFailed(broker, address, "cannot connect: " + rootMessage(error)));
                return;
            }
            connection.request(new ConsultRequest(), config.requestTimeoutMs()).whenComplete((response, e2) -> {
                connection.close();
                post(() -> {
                    if (e2 == null && response instanceof ConsultResponse consult) {
                        consultAnswered = true;
                        lastConsultFailures.remove(address);
                        feed(new SessionEvent.ConsultAnswered(broker.id(), consult));
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
        feed(new SessionEvent.ConsultFailed(broker.id(), reason));
    }

    private void connect(BrokerInfo coordinator) {
        long attempt = ++connectAttempt;
        client.connect(coordinator.host(), coordinator.port(), new CoordinatorHandler())
                .whenComplete((connection, error) -> post(() -> {
                    if (attempt != connectAttempt || state.terminated()) {
                        if (connection != null) {
                            connection.close();
                        }
                        return;
                    }
                    if (error != null || !connection.isOpen()) {
                        LOG.info("{}: cannot connect to coordinator {} at {}:{}: {}", config.consumerId(),
                                coordinator.id(), coordinator.host(), coordinator.port(),
                                error != null ? rootMessage(error) : "closed at once");
                        feed(new SessionEvent.ConnectionClosed(coordinator.id()));
                        return;
                    }
                    current = connection;
                    currentBrokerId = coordinator.id();
                    feed(new SessionEvent.Connected(coordinator.id()));
                }));
    }

    /**
     * Sends a Register or a Leave on the coordinator connection. An answer of {@code type} becomes the event
     * {@code answered} makes of it; anything else (no answer in time, a closed socket, an answer of another type)
     * closes the connection and becomes {@link SessionEvent.ConnectionClosed}: for Register the session rediscovers,
     * for Leave it ends without knowing whether the final offsets were written.
     */
    private <R extends Response> void requestOfCoordinator(Request request, Class<R> type,
                                                           Function<R, SessionEvent> answered) {
        Connection c = current;
        String what = request.getClass().getSimpleName().replace("Request", "");
        if (c == null) {
            throw new IllegalStateException(what + " without a coordinator connection in " + state);
        }
        c.request(request, config.requestTimeoutMs()).whenComplete((response, error) -> post(() -> {
            if (c != current) {
                return;
            }
            if (error == null && type.isInstance(response)) {
                feed(answered.apply(type.cast(response)));
                return;
            }
            LOG.info("{}: {} got no answer from coordinator {} ({})", config.consumerId(), what, currentBrokerId,
                    error != null ? rootMessage(error) : "unexpected " + response);
            int brokerId = currentBrokerId;
            closeCurrent();
            feed(new SessionEvent.ConnectionClosed(brokerId));
        }));
    }

    private void closeCurrent() {
        connectAttempt++; // a connect still in flight is no longer wanted
        if (current != null) {
            current.close();
            current = null;
            currentBrokerId = SessionState.NONE;
        }
    }

    private void startFetchers(int generation, List<PartitionAssignment> assigned) {
        if (!fetchers.isEmpty()) {
            throw new IllegalStateException("StartFetchers(" + generation + ") while " + fetchers + " still run");
        }
        taken.reset(assigned);
        fetchingEpoch = state.highestEpochSeen();
        List<String> names = LOG.isInfoEnabled() ? new ArrayList<>() : null; // not built unless logged
        List<ConsumerEvent> started = events == null ? null : new ArrayList<>(assigned.size());
        for (PartitionAssignment a : assigned) {
            Optional<StreamQueue> queue = router.queueFor(a.topic(), a.stream());
            if (queue.isEmpty()) {
                LOG.error("{}: generation {} assigns {}/{} to stream {}, which this consumer does not have; "
                        + "the partition is not fetched", config.consumerId(), generation, a.topic(), a.partition(),
                        a.stream());
                continue;
            }
            Fetcher f = new Fetcher(config.consumerId(), a.topic(), a.partition(), generation, a.offset(),
                    config.autoOffsetReset(), logs, queue.get(), config.fetchRecordsMax(), config.fetchWaitMs());
            fetchers.add(f);
            if (started != null) {
                // Stamped before its fetcher starts, as every FETCH_STARTED is; handed over with the others once
                // all are started.
                started.add(new ConsumerEvent(System.nanoTime(), ConsumerEvent.Kind.FETCH_STARTED, a.topic(),
                        a.partition(), fetchingEpoch, generation, a.offset(), ErrorCode.NONE, null));
            }
            f.start(fetcherThreads);
            if (names != null) {
                names.add(a.topic() + "/" + a.partition() + "@" + a.offset());
            }
        }
        if (started != null) {
            hand(started);
        }
        if (names != null) {
            LOG.info("{} of group {}: fetching generation {}: {}", config.consumerId(), config.groupId(), generation,
                    names);
        }
    }

    /**
     * Seed Stop handler 1.2: close every fetcher, then clear every queue, before anything is answered. Closed, a
     * fetcher adds nothing more; its thread lingers in its read for the next Start, at most {@link #LINGER_MS}.
     */
    private void stopFetchers() {
        List<Fetcher> stopped = List.copyOf(fetchers);
        for (Fetcher f : stopped) {
            f.close();
            fetcherThreads.closed(f);
        }
        fetchers.clear();
        if (!stopped.isEmpty()) {
            if (lingerEnd != null) {
                lingerEnd.cancel(false);
            }
            lingerEnd = loop.schedule(fetcherThreads::release, LINGER_MS, TimeUnit.MILLISECONDS);
        }
        int dropped = 0;
        for (StreamQueue q : router == null ? List.<StreamQueue>of() : router.all()) {
            dropped += q.clear();
        }
        emitStopped(stopped);
        if (dropped > 0) {
            LOG.debug("{}: dropped {} queued records of stopped partitions", config.consumerId(), dropped);
        }
    }

    private void emitStopped(List<Fetcher> stopped) {
        if (events == null || stopped.isEmpty()) {
            return;
        }
        // Nothing was delivered after the lease ran out (LeaseGate), even if the loop only now stops the fetchers:
        // the fetching ended then. The session clock is System.nanoTime() in milliseconds.
        long gateClosedNanos = leaseGate.deadlineMs() >= Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE
                : leaseGate.deadlineMs() * 1_000_000L;
        long at = Math.min(System.nanoTime(), gateClosedNanos);
        List<ConsumerEvent> batch = new ArrayList<>(stopped.size());
        for (Fetcher f : stopped) {
            batch.add(new ConsumerEvent(at, ConsumerEvent.Kind.FETCH_STOPPED, f.topic(), f.partition(),
                    fetchingEpoch, f.generation(), taken.next(f.topic(), f.partition()), ErrorCode.NONE, null));
        }
        hand(batch);
    }

    private void setTimer(TimerKey key, long deadlineMs) {
        cancelTimer(key);
        long delay = Math.max(0, deadlineMs - clockMs.getAsLong());
        timers.put(key, loop.schedule(() -> {
            if (!loopStopped) {
                feed(new SessionEvent.TimerFired(key));
            }
        }, delay, TimeUnit.MILLISECONDS));
    }

    private void cancelTimer(TimerKey key) {
        ScheduledFuture<?> f = timers.remove(key);
        if (f != null) {
            f.cancel(false);
        }
    }

    private void onTerminate(ErrorCode error, String reason) {
        if (error == ErrorCode.NONE) {
            LOG.info("{} of group {}: session over: {}", config.consumerId(), config.groupId(), reason);
        } else if (state.leaveSent()) {
            LOG.warn("{} of group {}: {}", config.consumerId(), config.groupId(), reason);
        } else {
            LOG.error("{} of group {}: the coordinator refused this consumer for good ({}): {}", config.consumerId(),
                    config.groupId(), error, reason);
        }
        termination = error == ErrorCode.NONE ? reason : error + ": " + reason;
        forceStop(reason);
        registered.completeExceptionally(new IllegalStateException("the consumer session is over: " + termination));
        terminated.complete(new SessionState.Termination(error, reason));
    }

    /** Everything stops: fetchers, queues (their takers see the end), timers, the connection. */
    private void forceStop(String reason) {
        stopFetchers();
        fetcherThreads.release();
        if (router != null) {
            router.all().forEach(StreamQueue::end);
        }
        for (TimerKey key : List.copyOf(timers.keySet())) {
            cancelTimer(key);
        }
        closeCurrent();
        if (termination == null) {
            termination = reason;
        }
        published = new Published(state, termination, registrations);
    }

    // ------------------------------------------------------------------ commits

    private void commitOnLoop(CompletableFuture<Void> result) {
        SessionState s = state;
        if (s.terminated() || termination != null) {
            result.completeExceptionally(new CommitFailedException(ErrorCode.UNKNOWN, "the consumer is shut down"));
            return;
        }
        if (s.status() == SessionStatus.REGISTERED) {
            result.complete(null); // nothing assigned, nothing to commit
            return;
        }
        if (s.status() != SessionStatus.FETCHING || current == null) {
            result.completeExceptionally(new CommitFailedException(ErrorCode.REBALANCE_IN_PROGRESS,
                    "not fetching (" + s.status() + "); the offsets are committed once a generation starts"));
            return;
        }
        List<PartitionOffset> offsets = taken.snapshot();
        if (offsets.isEmpty()) {
            result.complete(null);
            return;
        }
        OffsetCommitRequest request = new OffsetCommitRequest(config.groupId(), s.memberId(), s.highestEpochSeen(),
                s.generation(), offsets);
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

    private static String rootMessage(Throwable t) {
        Throwable c = t;
        while ((c instanceof java.util.concurrent.CompletionException || c instanceof ExecutionException)
                && c.getCause() != null) {
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

    // ------------------------------------------------------------------ connection handlers

    /** A Consult connection: brokers never send requests on it. */
    private static final ConnectionHandler IGNORE_REQUESTS = (connection, correlationId, request) -> { };

    /** The coordinator connection: its requests and its close become events, if it is still the current one. */
    private final class CoordinatorHandler implements ConnectionHandler {
        @Override
        public void onRequest(Connection connection, int correlationId, Request request) {
            post(() -> {
                if (connection == current) {
                    feed(new SessionEvent.RequestReceived(correlationId, request, takenFor(request)));
                }
            });
        }

        @Override
        public void onClose(Connection connection, Optional<Throwable> cause) {
            post(() -> {
                if (connection == current) {
                    int brokerId = currentBrokerId;
                    current = null;
                    currentBrokerId = SessionState.NONE;
                    LOG.info("{}: connection to coordinator {} closed{}", config.consumerId(), brokerId,
                            cause.map(t -> ": " + rootMessage(t)).orElse(""));
                    feed(new SessionEvent.ConnectionClosed(brokerId));
                }
            });
        }
    }

}
