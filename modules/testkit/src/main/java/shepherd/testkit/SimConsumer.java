package shepherd.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import shepherd.consumer.session.ConsumerSession;
import shepherd.consumer.session.SessionConfig;
import shepherd.consumer.session.SessionEffect;
import shepherd.consumer.session.SessionEvent;
import shepherd.consumer.session.SessionState;
import shepherd.consumer.session.SessionStatus;
import shepherd.consumer.session.Step;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PingRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Request;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StopRequest;

/**
 * One consumer process of the simulation: the real {@link ConsumerSession} core, driven the way the consumer runtime
 * drives it, over the simulated network. Its "application" takes one record every {@code msPerRecord} from each
 * partition it fetches, so offsets move and can be checked. Every fetch start, stop and lease renewal goes to the
 * {@link InvariantChecker} as it happens; a fetcher never fetches past its lease deadline (the runtime checks the
 * lease before each fetch), so the checker bounds each interval by the deadline.
 */
public final class SimConsumer {
    private static final int MS_PER_RECORD = 5;

    private final Scheduler scheduler;
    private final SimNetwork network;
    private final InvariantChecker checker;
    private final Consumer<String> trace;
    private final ConsumerSession core;
    private final SessionConfig config;
    private final String instance;
    private final SimProcess process;

    private SessionState state = SessionState.unstarted();
    private SimConnection.End coordinator;
    private int coordinatorId = -1;
    private int nextCorrelationId = 1;
    /** Partitions fetched now → position when fetching began, and the time it began. */
    private final Map<PartitionOffset, Long> fetching = new TreeMap<>(SimConsumer::compare);
    private final Map<String, Long> positions = new TreeMap<>();
    private long fetchingSinceMs;
    private boolean fetchersRunning;
    private long observedDeadlineMs = Long.MIN_VALUE;

    public SimConsumer(Scheduler scheduler, SimNetwork network, InvariantChecker checker, Consumer<String> trace,
            ConsumerSession core, SessionConfig config, int incarnation, double clockRate, long clockOffsetMs) {
        this.scheduler = scheduler;
        this.network = network;
        this.checker = checker;
        this.trace = trace;
        this.core = core;
        this.config = config;
        this.instance = config.consumerId() + "#" + incarnation;
        this.process = new SimProcess(scheduler, network, "c:" + instance, clockRate, clockOffsetMs);
        network.register(process.node(), end -> null); // consumers accept nothing; registered so a crash resets
    }

    public String consumerId() {
        return config.consumerId();
    }

    public String instance() {
        return instance;
    }

    public SimProcess process() {
        return process;
    }

    public SessionState state() {
        return state;
    }

    public SessionConfig config() {
        return config;
    }

    /** The partitions this consumer fetches now, as "topic/partition". */
    public List<String> fetchingNow() {
        List<String> out = new ArrayList<>();
        if (fetchersRunning) {
            fetching.keySet().forEach(p -> out.add(p.topic() + "/" + p.partition()));
        }
        return out;
    }

    public void start() {
        handle(new SessionEvent.Started(config));
    }

    public void shutdown() {
        process.run(() -> handle(new SessionEvent.ShutdownRequested(taken())));
    }

    public void crash() {
        if (process.crashed()) {
            return;
        }
        trace("crash");
        process.crash();
        checker.instanceGone(instance, scheduler.nowMs());
        fetchersRunning = false;
    }

    // ------------------------------------------------------------------ driving the core

    private void handle(SessionEvent event) {
        if (process.crashed() || state.terminated()) {
            return;
        }
        SessionState before = state;
        Step step = core.onEvent(state, event, process.localNowMs());
        state = step.next();
        observeCommand(before, event, step);
        for (SessionEffect effect : step.effects()) {
            execute(effect);
        }
        observeLease();
    }

    private void execute(SessionEffect effect) {
        if (effect instanceof SessionEffect.SendConsult c) {
            consult(c.broker().id(), c.broker().host());
        } else if (effect instanceof SessionEffect.Connect c) {
            connect(c.coordinator().id(), c.coordinator().host());
        } else if (effect instanceof SessionEffect.SendRegister r) {
            sendToCoordinator(r.request());
        } else if (effect instanceof SessionEffect.Respond r) {
            if (coordinator != null) {
                coordinator.send(new SimMessage.Resp(r.correlationId(), r.response()));
            }
        } else if (effect instanceof SessionEffect.StartFetchers s) {
            startFetchers(s.generation(), s.assigned());
        } else if (effect instanceof SessionEffect.StopFetchers s) {
            stopFetchers(s.generation());
        } else if (effect instanceof SessionEffect.SetTimer t) {
            process.setTimer(t.key(), t.deadlineMs(), () -> handle(new SessionEvent.TimerFired(t.key())));
        } else if (effect instanceof SessionEffect.CancelTimer t) {
            process.cancelTimer(t.key());
        } else if (effect instanceof SessionEffect.CloseConnection c) {
            if (coordinator != null && coordinatorId == c.brokerId()) {
                coordinator.close();
                coordinator = null;
            }
        } else if (effect instanceof SessionEffect.SendLeave l) {
            sendToCoordinator(l.request());
        } else if (effect instanceof SessionEffect.Terminate t) {
            trace("terminated: " + t.error() + " " + t.reason());
        }
    }

    private void consult(int brokerId, String node) {
        int correlationId = nextCorrelationId++;
        boolean[] answered = new boolean[1];
        SimConnection[] conn = new SimConnection[1];
        conn[0] = network.connect(process.node(), node, new SimConnection.Handler() {
            @Override
            public void onOpen() {
                process.run(() -> conn[0].client().send(new SimMessage.Req(correlationId, new ConsultRequest())));
            }

            @Override
            public void onMessage(Object message) {
                process.run(() -> {
                    if (message instanceof SimMessage.Resp r && r.response() instanceof ConsultResponse response
                            && !answered[0]) {
                        answered[0] = true;
                        conn[0].client().close();
                        handle(new SessionEvent.ConsultAnswered(brokerId, response));
                    }
                });
            }

            @Override
            public void onClosed(String reason) {
                process.run(() -> {
                    if (!answered[0]) {
                        answered[0] = true;
                        handle(new SessionEvent.ConsultFailed(brokerId, reason));
                    }
                });
            }
        });
    }

    private void connect(int brokerId, String node) {
        if (coordinator != null) {
            coordinator.close();
        }
        SimConnection[] conn = new SimConnection[1];
        conn[0] = network.connect(process.node(), node, new SimConnection.Handler() {
            @Override
            public void onOpen() {
                process.run(() -> {
                    if (coordinator == conn[0].client()) {
                        handle(new SessionEvent.Connected(brokerId));
                    }
                });
            }

            @Override
            public void onMessage(Object message) {
                process.run(() -> {
                    if (coordinator == conn[0].client()) {
                        onCoordinatorMessage(message);
                    }
                });
            }

            @Override
            public void onClosed(String reason) {
                process.run(() -> {
                    if (coordinator == conn[0].client()) {
                        coordinator = null;
                        handle(new SessionEvent.ConnectionClosed(brokerId));
                    }
                });
            }
        });
        coordinator = conn[0].client();
        coordinatorId = brokerId;
    }

    private void onCoordinatorMessage(Object message) {
        if (message instanceof SimMessage.Req r) {
            handle(new SessionEvent.RequestReceived(r.correlationId(), r.request(), taken()));
        } else if (message instanceof SimMessage.Resp r && r.response() instanceof RegisterResponse response) {
            handle(new SessionEvent.RegisterAnswered(response));
        } else if (message instanceof SimMessage.Resp r && r.response() instanceof LeaveResponse response) {
            handle(new SessionEvent.LeaveAnswered(response));
        }
        // OffsetCommitResponse: nothing waits for it in the core.
    }

    private void sendToCoordinator(Request request) {
        if (coordinator != null) {
            coordinator.send(new SimMessage.Req(nextCorrelationId++, request));
        }
    }

    // ------------------------------------------------------------------ fetchers and the application

    private void startFetchers(int generation, List<PartitionAssignment> assigned) {
        long now = scheduler.nowMs();
        long local = process.localNowMs();
        fetching.clear();
        positions.clear();
        for (PartitionAssignment a : assigned) {
            long from = a.offset() < 0 ? 0 : a.offset();
            fetching.put(new PartitionOffset(a.topic(), a.partition(), from), from);
            checker.fetchStarted(instance, config.consumerId(), config.groupId(), a.topic(), a.partition(), now,
                    process.realAt(state.leaseDeadlineMs()));
        }
        fetchingSinceMs = local;
        fetchersRunning = true;
        observedDeadlineMs = state.leaseDeadlineMs();
        trace("start g" + generation + " " + assigned.size() + " partitions, lease to "
                + process.realAt(state.leaseDeadlineMs()));
    }

    private void stopFetchers(int generation) {
        long now = scheduler.nowMs();
        if (fetchersRunning) {
            freezePositions(process.localNowMs());
            for (PartitionOffset p : fetching.keySet()) {
                checker.fetchStopped(instance, config.groupId(), p.topic(), p.partition(), now);
            }
        }
        fetchersRunning = false;
        trace("stop g" + generation);
        // Closing fetchers and clearing queues takes a moment; the core hears of it as an event.
        process.after(1, () -> handle(new SessionEvent.FetchersStopped(generation, taken())));
    }

    private void freezePositions(long now) {
        long records = Math.max(0, (Math.min(now, Math.max(fetchingSinceMs, state.leaseDeadlineMs())) - fetchingSinceMs)
                / MS_PER_RECORD);
        fetching.forEach((p, from) -> positions.put(p.topic() + "/" + p.partition(), from + records));
    }

    /** The offsets the application has taken: next offset to consume, per partition of the current assignment. */
    private List<PartitionOffset> taken() {
        long now = process.localNowMs();
        List<PartitionOffset> out = new ArrayList<>();
        if (fetchersRunning) {
            long until = Math.min(now, state.leaseDeadlineMs());
            long records = Math.max(0, (until - fetchingSinceMs) / MS_PER_RECORD);
            fetching.forEach((p, from) -> out.add(new PartitionOffset(p.topic(), p.partition(), from + records)));
        } else {
            fetching.keySet().forEach(p -> out.add(new PartitionOffset(p.topic(), p.partition(),
                    positions.getOrDefault(p.topic() + "/" + p.partition(), p.offset()))));
        }
        return out;
    }

    // ------------------------------------------------------------------ observations for the checker

    private void observeLease() {
        if (fetchersRunning && state.leaseDeadlineMs() != observedDeadlineMs) {
            observedDeadlineMs = state.leaseDeadlineMs();
            checker.leaseRenewed(instance, scheduler.nowMs(), process.realAt(observedDeadlineMs));
        }
    }

    private void observeCommand(SessionState before, SessionEvent event, Step step) {
        if (!(event instanceof SessionEvent.RequestReceived r)) {
            return;
        }
        Request request = r.request();
        boolean applied;
        int epoch;
        int generation;
        String kind;
        boolean stoppedForPrevious = true;
        if (request instanceof PingRequest ping) {
            kind = "Ping";
            epoch = ping.coordinatorEpoch();
            generation = ping.generation();
            applied = step.effects().stream().anyMatch(e -> e instanceof SessionEffect.Respond resp
                    && resp.response().errorCode() == shepherd.protocol.ErrorCode.NONE);
        } else if (request instanceof StopRequest stop) {
            kind = "Stop";
            epoch = stop.coordinatorEpoch();
            generation = stop.generation();
            applied = state.status() == SessionStatus.STOPPED && (before.status() != SessionStatus.STOPPED
                    || state.generation() != before.generation());
        } else if (request instanceof StartRequest start) {
            kind = "Start";
            epoch = start.coordinatorEpoch();
            generation = start.generation();
            applied = step.effects().stream().anyMatch(e -> e instanceof SessionEffect.StartFetchers);
            stoppedForPrevious = before.status() == SessionStatus.REGISTERED
                    || before.status() == SessionStatus.STOPPED && start.generation() > before.generation();
        } else {
            return;
        }
        if (applied) {
            checker.commandApplied(instance, kind, epoch, before.highestEpochSeen(), Math.max(generation, 0),
                    stoppedForPrevious, scheduler.nowMs());
        }
    }

    private void trace(String line) {
        trace.accept("t=" + scheduler.nowMs() + " " + instance + " " + line);
    }

    private static int compare(PartitionOffset a, PartitionOffset b) {
        int c = a.topic().compareTo(b.topic());
        return c != 0 ? c : a.partition().compareTo(b.partition());
    }

    /** For tests: the brokers this consumer knows at start. */
    static Map<Integer, String> nodes(SessionConfig config) {
        Map<Integer, String> out = new HashMap<>();
        config.bootstrapBrokers().forEach(b -> out.put(b.id(), b.host()));
        return out;
    }
}
