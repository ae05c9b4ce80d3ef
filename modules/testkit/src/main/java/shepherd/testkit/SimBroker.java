package shepherd.testkit;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import shepherd.coordination.Coordinator;
import shepherd.coordination.CoordinatorConfig;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent;
import shepherd.coordination.defect.Defect;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.PingRequest;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.Request;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StopRequest;
import shepherd.zookeeper.EffectRouter;
import shepherd.zookeeper.ZooKeeperAdapter;

/**
 * One broker process of the simulation, wired as {@code shepherd.broker.Broker} wires a real one: the real
 * {@link Coordinator} core, the real {@link ZooKeeperAdapter} (election, broker registry, batched reads, fenced and
 * split writes, session handling) over the simulated ZooKeeper ({@link SimZkClient}) on the process's own loop
 * ({@link SimZkLoop}), and the core's effects routed by the broker's {@link EffectRouter}. What is the simulation's
 * own: consumer connections on the simulated network, timers on the process's drifting clock, and the checker's
 * taps — every command sent, every Start's grant, every election won, every assignment computed.
 */
public final class SimBroker {
    /** Size at which a write is cut into several multis: small enough that owners writes of most runs split. */
    public static final int SPLIT_MULTI_BYTES = 700;

    private final Scheduler scheduler;
    private final SimNetwork network;
    private final SimZooKeeper zk;
    private final InvariantChecker checker;
    private final Consumer<String> trace;
    private final CoordinatorConfig config;
    private final Coordinator core;
    private final String incarnation;
    private final SimProcess process;
    private final int multiBytesMax;
    private final Map<Long, String> sessionOwners;
    private final EffectRouter router;

    private ZooKeeperAdapter adapter;
    private SimZooKeeper.Client client;
    private final Map<Long, SimConnection.End> connections = new HashMap<>();
    private final Map<Long, String[]> members = new HashMap<>();
    private boolean handedOver;

    /**
     * @param multiBytesMax the adapter's multi size limit: the broker's default, or {@link #SPLIT_MULTI_BYTES}
     * @param sessionOwners filled with each ZooKeeper session this broker opens, so commits name their writer
     */
    public SimBroker(Scheduler scheduler, SimNetwork network, SimZooKeeper zk, InvariantChecker checker,
            Consumer<String> trace, CoordinatorConfig config, Set<Defect> defects, int incarnation,
            int multiBytesMax, Map<Long, String> sessionOwners, double clockRate, long clockOffsetMs) {
        this.scheduler = scheduler;
        this.network = network;
        this.zk = zk;
        this.checker = checker;
        this.trace = trace;
        this.config = config;
        this.core = new Coordinator(config, defects.isEmpty() ? EnumSet.noneOf(Defect.class) : defects);
        this.incarnation = "broker-" + config.brokerId() + "#" + incarnation;
        this.process = new SimProcess(scheduler, network, node(config.brokerId()), clockRate, clockOffsetMs);
        this.multiBytesMax = multiBytesMax;
        this.sessionOwners = sessionOwners;
        this.router = new EffectRouter(z -> adapter.execute(z), this::network, this::timer, this::observe);
    }

    public static String node(int brokerId) {
        return "broker-" + brokerId;
    }

    public int brokerId() {
        return config.brokerId();
    }

    public String incarnation() {
        return incarnation;
    }

    public Coordinator core() {
        return core;
    }

    public SimProcess process() {
        return process;
    }

    /** The simulated client of the adapter's current ZooKeeper session. */
    public SimZooKeeper.Client zkClient() {
        return client;
    }

    public boolean handedOver() {
        return handedOver;
    }

    /** As a broker starts: open the adapter, register under {@code /brokers/ids}, then boot the core. */
    public void start() {
        network.register(process.node(), this::accept);
        ZooKeeperAdapter.Config zkConfig = new ZooKeeperAdapter.Config("sim", (int) config.sessionTimeoutMs(),
                config.brokerId(), config.zkRetryMs(), multiBytesMax, true);
        adapter = ZooKeeperAdapter.open(zkConfig,
                SimZkClient.factory(zk, incarnation, config.sessionTimeoutMs(), this::sessionOpened),
                new SimZkLoop(scheduler, process), this::fromZooKeeper, process::localNowMs);
        adapter.registerBroker(new BrokerInfo(config.brokerId(), process.node(), 9092, "sim"));
        post(new CoordinatorEvent.Boot());
    }

    public void pause() {
        process.pause();
        client.pause();
    }

    public void resume() {
        client.resume();
        process.resume();
    }

    /** kill -9: nothing runs any more; ZooKeeper stops hearing the session and expires it in due time. */
    public void crash() {
        trace("crash");
        client.pause();
        process.crash();
    }

    public void handover() {
        post(new CoordinatorEvent.HandoverRequested());
    }

    // ------------------------------------------------------------------ the event loop

    private void sessionOpened(SimZooKeeper.Client opened) {
        client = opened;
        sessionOwners.put(opened.sessionId(), incarnation);
    }

    /** The adapter's sink: the broker's queue. An election won is the checker's before the core hears of it. */
    private void fromZooKeeper(CoordinatorEvent event) {
        if (event instanceof CoordinatorEvent.ElectionWon won) {
            trace("won election, epoch " + won.epoch() + (won.previousHandedOver() ? " (clean handover before)" : ""));
            checker.electionWon(incarnation, won.epoch(), scheduler.nowMs());
        } else if (event instanceof CoordinatorEvent.ZkExpired) {
            trace("ZooKeeper session expired");
        }
        post(event);
    }

    /** Enqueues {@code event}: it runs after everything already due, as the broker loop takes its queue in order. */
    private void post(CoordinatorEvent event) {
        scheduler.after(0, () -> process.run(() -> deliver(event)));
    }

    private void deliver(CoordinatorEvent event) {
        if (process.crashed() || handedOver) {
            return;
        }
        router.executeAll(core.onEvent(event, process.localNowMs()));
    }

    private void timer(CoordinatorEffect.Timer effect) {
        if (effect instanceof CoordinatorEffect.SetTimer t) {
            process.setTimer(t.timer(), t.deadlineMs(), () -> deliver(new CoordinatorEvent.TimerFired(t.timer())));
        } else if (effect instanceof CoordinatorEffect.CancelTimer t) {
            process.cancelTimer(t.timer());
        } else if (effect instanceof CoordinatorEffect.CancelAllTimers) {
            process.cancelAllTimers();
        }
    }

    private void observe(CoordinatorEffect.Observation effect) {
        if (effect instanceof CoordinatorEffect.Notice n) {
            trace(n.message());
        } else if (effect instanceof CoordinatorEffect.Assigned a) {
            checker.assignmentComputed(a.group(), a.input(), a.assignment(), scheduler.nowMs());
        } else if (effect instanceof CoordinatorEffect.HandedOver h) {
            trace("handed over epoch " + h.epoch());
            handedOver = true;
            process.cancelAllTimers();
            adapter.close();
            network.unregister(process.node());
        }
    }

    // ------------------------------------------------------------------ consumers

    private void network(CoordinatorEffect.Network effect) {
        if (effect instanceof CoordinatorEffect.SendRequest s) {
            send(s);
        } else if (effect instanceof CoordinatorEffect.Respond r) {
            SimConnection.End end = connections.get(r.connectionId());
            if (end != null) {
                end.send(new SimMessage.Resp(r.correlationId(), r.response()));
            }
        } else if (effect instanceof CoordinatorEffect.CloseConnection c) {
            SimConnection.End end = connections.remove(c.connectionId());
            members.remove(c.connectionId());
            if (end != null) {
                end.close();
            }
        }
    }

    private SimConnection.Handler accept(SimConnection.End end) {
        long id = end.id();
        return new SimConnection.Handler() {
            @Override
            public void onOpen() {
                process.run(() -> connections.put(id, end));
            }

            @Override
            public void onMessage(Object message) {
                process.run(() -> {
                    connections.putIfAbsent(id, end);
                    if (message instanceof SimMessage.Req r) {
                        if (r.request() instanceof RegisterRequest reg) {
                            members.put(id, new String[] {reg.groupId(), reg.consumerId()});
                        }
                        deliver(new CoordinatorEvent.RequestReceived(id, r.correlationId(), r.request()));
                    } else if (message instanceof SimMessage.Resp r) {
                        deliver(new CoordinatorEvent.ResponseReceived(id, r.correlationId(), r.response()));
                    }
                });
            }

            @Override
            public void onClosed(String reason) {
                process.run(() -> {
                    connections.remove(id);
                    members.remove(id);
                    deliver(new CoordinatorEvent.ConnectionClosed(id));
                });
            }
        };
    }

    private void send(CoordinatorEffect.SendRequest s) {
        SimConnection.End end = connections.get(s.connectionId());
        Request request = s.request();
        int epoch = request instanceof PingRequest p ? p.coordinatorEpoch()
                : request instanceof StopRequest st ? st.coordinatorEpoch()
                : ((StartRequest) request).coordinatorEpoch();
        long now = scheduler.nowMs();
        checker.commandSent(incarnation, epoch, now);
        if (request instanceof StartRequest start) {
            String[] member = members.getOrDefault(s.connectionId(), new String[] {"?", "?"});
            List<String[]> tps = new ArrayList<>();
            start.assigned().forEach(a -> tps.add(new String[] {a.topic(), a.partition()}));
            checker.startSent(incarnation, epoch, member[0], member[1], tps, now);
        }
        if (end != null) {
            end.send(new SimMessage.Req(Math.toIntExact(s.requestId()), request));
        }
    }

    private void trace(String line) {
        trace.accept("t=" + scheduler.nowMs() + " " + incarnation + " " + line);
    }
}
