package shepherd.consumer.internal;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.OffsetCommitRequest;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Subscription;
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
 * <p>This class is the loop, the application's calls and the effects' dispatch; the effects themselves are done by
 * {@link CoordinatorLink} (discovery and the coordinator connection), {@link Fetchers} (the fetchers and the streams
 * they feed) and {@link ListenerEvents} (the application's listener).
 */
public final class ConsumerRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerRuntime.class);

    private final ConsumerConfig config;
    private final LongSupplier clockMs;
    private final TransportClient client;
    private final ScheduledExecutorService loop;
    private final ConsumerSession core = new ConsumerSession();
    private final TakenOffsets taken = new TakenOffsets();
    private final LeaseGate leaseGate;
    private final ListenerEvents events;
    private final Fetchers fetchers;
    private final CoordinatorLink link;
    private final CompletableFuture<Void> registered = new CompletableFuture<>();
    private final CompletableFuture<SessionState.Termination> terminated = new CompletableFuture<>();

    // Loop-thread state.
    private SessionState state = SessionState.unstarted();
    private final Map<TimerKey, ScheduledFuture<?>> timers = new EnumMap<>(TimerKey.class);
    private int registrations;
    private String termination;

    /** Set by close() and halt(): the loop (the transport's) runs nothing of this consumer's any more. */
    private volatile boolean loopStopped;
    /**
     * What {@link #status()} is built from, as of the loop's last step. Published, not built, after every step: the
     * status lists the assigned partitions by name, sorted, which on every ping of every consumer would be a stream,
     * a sort and a string per partition that nobody asked for.
     */
    private volatile Published published;

    public ConsumerRuntime(ConsumerConfig config, PartitionLogs logs, LongSupplier clockMs) {
        this.config = config;
        this.clockMs = clockMs;
        this.leaseGate = new LeaseGate(clockMs);
        this.client = TransportClient.create(TransportConfig.defaults().withIoThreads(1)
                .withRequestTimeoutMs(config.requestTimeoutMs())
                .withConnectTimeoutMs(Math.min(config.requestTimeoutMs(), TransportConfig.CONNECT_TIMEOUT_MS_DEFAULT)));
        this.loop = client.loop();
        this.published = new Published(state, null, 0);
        this.events = new ListenerEvents(config);
        this.fetchers = new Fetchers(config, logs, taken, leaseGate, events, loop);
        this.link = new CoordinatorLink(config, client, taken, new CoordinatorLink.Loop() {
            @Override
            public boolean post(Runnable task) {
                return ConsumerRuntime.this.post(task);
            }

            @Override
            public void feed(SessionEvent event) {
                ConsumerRuntime.this.feed(event);
            }

            @Override
            public SessionState state() {
                return state;
            }
        });
    }

    // ------------------------------------------------------------------ calls from application threads

    /** Begins discovery with this subscription; records go to the streams {@code router} names. */
    public void start(Subscription subscription, StreamRouter router) {
        SessionConfig sessionConfig = new SessionConfig(config.groupId(), config.consumerId(), subscription,
                config.autoCommit(), config.autoOffsetReset(), config.pingIntervalMs(),
                (short) config.maxPingRetries(), bootstrapBrokers(), config.backoffInitialMs(), config.backoffMaxMs());
        post(() -> {
            fetchers.route(router);
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
        fetchers.shutdownThreads();
        client.close();
        events.close();
    }

    /**
     * A crash as the coordinator sees it: the sockets close, nothing more is sent or answered, no Leave. The
     * fetchers stop and the streams end, as the process they belong to would.
     */
    public void halt() {
        terminated.complete(new SessionState.Termination(ErrorCode.NONE, "halted"));
        loopStopped = true;
        client.close();
        fetchers.halt();
        events.close();
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
            if (!link.anyConsultAnswered()) {
                throw new AllKnownBrokersNotAvailableException("no broker of " + config.bootstrap()
                        + " answered within " + timeoutMs + " ms", link.consultFailures());
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
            events.emit(ConsumerEvent.Kind.STATE_CHANGED, null, null, state.highestEpochSeen(), state.generation(),
                    -1, ErrorCode.NONE, before + "->" + state.status());
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
            link.sendConsult(e.broker());
        } else if (effect instanceof SessionEffect.Connect e) {
            link.connect(e.coordinator());
        } else if (effect instanceof SessionEffect.SendRegister e) {
            link.request(e.request(), RegisterResponse.class, SessionEvent.RegisterAnswered::new);
        } else if (effect instanceof SessionEffect.Respond e) {
            link.respond(e.correlationId(), e.response());
            if (e.response().errorCode() != ErrorCode.NONE) {
                events.emit(ConsumerEvent.Kind.COMMAND_REJECTED, null, null, state.highestEpochSeen(),
                        state.generation(), -1, e.response().errorCode(), e.response().apiKey().name());
            }
        } else if (effect instanceof SessionEffect.StartFetchers e) {
            fetchers.start(e.generation(), state.highestEpochSeen(), e.assigned());
        } else if (effect instanceof SessionEffect.StopFetchers e) {
            fetchers.stop();
            List<PartitionOffset> last = taken.snapshot();
            post(() -> feed(new SessionEvent.FetchersStopped(e.generation(), last)));
        } else if (effect instanceof SessionEffect.SetTimer e) {
            setTimer(e.key(), e.deadlineMs());
        } else if (effect instanceof SessionEffect.CancelTimer e) {
            cancelTimer(e.key());
        } else if (effect instanceof SessionEffect.CloseConnection) {
            link.close();
        } else if (effect instanceof SessionEffect.SendLeave e) {
            link.request(e.request(), LeaveResponse.class, SessionEvent.LeaveAnswered::new);
        } else if (effect instanceof SessionEffect.Terminate e) {
            onTerminate(e.error(), e.reason());
        } else {
            throw new IllegalStateException("unknown effect " + effect);
        }
    }

    // ------------------------------------------------------------------ effects of the loop's own

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
        fetchers.stopForGood();
        for (TimerKey key : List.copyOf(timers.keySet())) {
            cancelTimer(key);
        }
        link.close();
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
        if (s.status() != SessionStatus.FETCHING || !link.connected()) {
            result.completeExceptionally(new CommitFailedException(ErrorCode.REBALANCE_IN_PROGRESS,
                    "not fetching (" + s.status() + "); the offsets are committed once a generation starts"));
            return;
        }
        List<PartitionOffset> offsets = taken.snapshot();
        if (offsets.isEmpty()) {
            result.complete(null);
            return;
        }
        link.commit(new OffsetCommitRequest(config.groupId(), s.memberId(), s.highestEpochSeen(), s.generation(),
                offsets), result);
    }
}
