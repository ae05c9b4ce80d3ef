package shepherd.testkit;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import shepherd.coordination.Coordinator;
import shepherd.coordination.CoordinatorConfig;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent;
import shepherd.coordination.GroupSnapshot;
import shepherd.coordination.Registration;
import shepherd.coordination.ZkOp;
import shepherd.coordination.ZkRead;
import shepherd.coordination.assign.Assignors;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.coordination.defect.Defect;
import shepherd.protocol.PingRequest;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.Request;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StopRequest;
import shepherd.testkit.SimZkTree.EpochData;
import shepherd.testkit.SimZkTree.GroupData;
import shepherd.testkit.SimZkTree.OffsetData;
import shepherd.testkit.SimZkTree.OwnerData;

/**
 * One broker process of the simulation: the real {@link Coordinator} core, with the part of the ZooKeeper adapter
 * the core needs (election with the epoch bump in one multi, reads that re-arm watches, fenced multis, keep-alives,
 * session events) written against the simulated ZooKeeper, and its consumer connections on the simulated network.
 * It executes effects exactly as the broker's event loop will: in order, one event at a time.
 */
public final class SimBroker {
    private final Scheduler scheduler;
    private final SimNetwork network;
    private final SimZooKeeper zk;
    private final InvariantChecker checker;
    private final Consumer<String> trace;
    private final CoordinatorConfig config;
    private final Coordinator core;
    private final String incarnation;
    private final SimProcess process;
    private final long zkDelayMaxMs;
    private final Map<Long, String> sessionOwners;

    private SimZooKeeper.Client client;
    private final Map<Long, SimConnection.End> connections = new HashMap<>();
    private final Map<Long, String[]> members = new HashMap<>();
    private boolean wantElection;
    private boolean handedOver;

    public SimBroker(Scheduler scheduler, SimNetwork network, SimZooKeeper zk, InvariantChecker checker,
            Consumer<String> trace, CoordinatorConfig config, Set<Defect> defects, int incarnation,
            long zkDelayMaxMs, Map<Long, String> sessionOwners, double clockRate, long clockOffsetMs) {
        this.scheduler = scheduler;
        this.network = network;
        this.zk = zk;
        this.checker = checker;
        this.trace = trace;
        this.config = config;
        this.core = new Coordinator(config, defects.isEmpty() ? EnumSet.noneOf(Defect.class) : defects);
        this.incarnation = "broker-" + config.brokerId() + "#" + incarnation;
        this.process = new SimProcess(scheduler, network, node(config.brokerId()), clockRate, clockOffsetMs);
        this.zkDelayMaxMs = zkDelayMaxMs;
        this.sessionOwners = sessionOwners;
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

    public SimZooKeeper.Client zkClient() {
        return client;
    }

    public boolean handedOver() {
        return handedOver;
    }

    public void start() {
        network.register(process.node(), this::accept);
        connectZk();
        deliver(new CoordinatorEvent.Boot());
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

    /** What the adapter's watch on {@code /brokers/ids} reports. */
    public void brokersChanged(List<shepherd.protocol.BrokerInfo> brokers) {
        process.run(() -> deliver(new CoordinatorEvent.BrokersChanged(brokers)));
    }

    public void handover() {
        process.run(() -> deliver(new CoordinatorEvent.HandoverRequested()));
    }

    // ------------------------------------------------------------------ the event loop

    private void deliver(CoordinatorEvent event) {
        if (process.crashed() || handedOver) {
            return;
        }
        List<CoordinatorEffect> effects = core.onEvent(event, process.localNowMs());
        for (CoordinatorEffect effect : effects) {
            execute(effect);
        }
    }

    private void post(CoordinatorEvent event) {
        process.run(() -> deliver(event));
    }

    private void execute(CoordinatorEffect effect) {
        if (effect instanceof CoordinatorEffect.RunForElection) {
            wantElection = true;
            runForElection();
        } else if (effect instanceof CoordinatorEffect.Resign r) {
            resign(r.rejoin());
        } else if (effect instanceof CoordinatorEffect.Read r) {
            read(r.read());
        } else if (effect instanceof CoordinatorEffect.KeepAlive) {
            SimZooKeeper.Client c = client;
            c.sync(res -> {
                if (c == client && res.ok()) {
                    post(new CoordinatorEvent.ZkSynced(process.localAt(res.sentAtMs())));
                }
            });
        } else if (effect instanceof CoordinatorEffect.Write w) {
            write(w);
        } else if (effect instanceof CoordinatorEffect.SendRequest s) {
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
        } else if (effect instanceof CoordinatorEffect.SetTimer t) {
            process.setTimer(t.timer(), t.deadlineMs(), () -> deliver(new CoordinatorEvent.TimerFired(t.timer())));
        } else if (effect instanceof CoordinatorEffect.CancelTimer t) {
            process.cancelTimer(t.timer());
        } else if (effect instanceof CoordinatorEffect.CancelAllTimers) {
            process.cancelAllTimers();
        } else if (effect instanceof CoordinatorEffect.Notice n) {
            trace(n.message());
        } else if (effect instanceof CoordinatorEffect.Assigned a) {
            checker.assignmentComputed(a.group(), a.input(), a.assignment(), scheduler.nowMs());
        } else if (effect instanceof CoordinatorEffect.HandedOver h) {
            trace("handed over epoch " + h.epoch());
            handedOver = true;
            process.cancelAllTimers();
            client.close();
            network.unregister(process.node());
        }
    }

    // ------------------------------------------------------------------ consumers

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

    // ------------------------------------------------------------------ ZooKeeper: session and election

    private void connectZk() {
        SimZooKeeper.Client[] self = new SimZooKeeper.Client[1];
        self[0] = zk.connect(incarnation, config.sessionTimeoutMs(), new SimZkListener() {
            @Override
            public void onSession(SimZkSessionEvent event) {
                process.run(() -> {
                    if (self[0] != client) {
                        return;
                    }
                    switch (event) {
                        case DISCONNECTED -> deliver(new CoordinatorEvent.ZkDisconnected());
                        case SYNC_CONNECTED -> deliver(new CoordinatorEvent.ZkSyncConnected(
                                process.localAt(Math.max(0, scheduler.nowMs() - 2 * zkDelayMaxMs))));
                        case EXPIRED -> {
                            trace("ZooKeeper session expired");
                            connectZk(); // a new session for the new round (handleNewSession)
                            deliver(new CoordinatorEvent.ZkExpired());
                        }
                    }
                });
            }

            @Override
            public void onWatch(SimZkWatchEvent event) {
                process.run(() -> {
                    if (self[0] == client) {
                        onWatchFired(event);
                    }
                });
            }
        });
        client = self[0];
        sessionOwners.put(client.sessionId(), incarnation);
    }

    private void onWatchFired(SimZkWatchEvent event) {
        String path = event.path();
        if (path.equals(SimZkTree.COORDINATOR)) {
            if (wantElection && !core.isCoordinator()) {
                runForElection();
            }
        } else if (path.equals(SimZkTree.TOPICS)) {
            deliver(new CoordinatorEvent.TopicChange());
        } else if (path.startsWith(SimZkTree.TOPICS + "/")) {
            deliver(new CoordinatorEvent.TopicPartitionChange(path.split("/")[3]));
        } else if (path.equals(SimZkTree.GROUPS)) {
            deliver(new CoordinatorEvent.GroupChange());
        } else if (path.startsWith(SimZkTree.GROUPS + "/") && path.endsWith("/ids")) {
            deliver(new CoordinatorEvent.GroupMemberChange(path.split("/")[3]));
        }
    }

    /** Election: create the ephemeral node and bump the epoch in one multi; on NodeExists, watch and wait. */
    private void runForElection() {
        SimZooKeeper.Client c = client;
        c.getData(SimZkTree.EPOCH, false, epochRead -> process.run(() -> {
            if (c != client || !wantElection || core.isCoordinator()) {
                return;
            }
            if (!epochRead.ok()) {
                retryElectionLater(c);
                return;
            }
            int version = epochRead.stat().version();
            boolean handover = epochRead.data() instanceof EpochData d && d.handover();
            c.multi(List.of(new SimZkOp.Create(SimZkTree.COORDINATOR, config.brokerId(), true),
                    new SimZkOp.SetData(SimZkTree.EPOCH, new EpochData(config.brokerId(), false), version)),
                    res -> process.run(() -> onElectionResult(c, res, version, handover)));
        }));
    }

    private void onElectionResult(SimZooKeeper.Client c, SimZkResult res, int version, boolean handover) {
        if (c != client || !wantElection) {
            return;
        }
        if (res.ok()) {
            wantElection = false;
            int epoch = version + 1;
            trace("won election, epoch " + epoch + (handover ? " (clean handover before)" : ""));
            checker.electionWon(incarnation, epoch, scheduler.nowMs());
            deliver(new CoordinatorEvent.ElectionWon(epoch, handover, process.localAt(res.sentAtMs())));
        } else if (res.code() == SimZkCode.NODE_EXISTS) {
            watchLeader(c);
        } else if (res.code() == SimZkCode.CONNECTION_LOSS) {
            resolveLostElection(c, handover);
        } else if (res.code() != SimZkCode.SESSION_EXPIRED) {
            retryElectionLater(c);
        }
    }

    /** The multi's reply was lost: the node is ours iff its ephemeral owner is our session (DESIGN §5). */
    private void resolveLostElection(SimZooKeeper.Client c, boolean handover) {
        c.getData(SimZkTree.COORDINATOR, false, node -> process.run(() -> {
            if (c != client || !wantElection) {
                return;
            }
            if (node.code() == SimZkCode.CONNECTION_LOSS) {
                process.after(config.zkRetryMs(), () -> resolveLostElection(c, handover));
            } else if (node.ok() && node.stat().ephemeralOwner() == c.sessionId()) {
                c.getData(SimZkTree.EPOCH, false, epoch -> process.run(() -> {
                    if (c == client && wantElection && epoch.ok()) {
                        wantElection = false;
                        checker.electionWon(incarnation, epoch.stat().version(), scheduler.nowMs());
                        deliver(new CoordinatorEvent.ElectionWon(epoch.stat().version(), handover, process.localAt(node.sentAtMs())));
                    } else if (c == client && wantElection) {
                        process.after(config.zkRetryMs(), () -> resolveLostElection(c, handover));
                    }
                }));
            } else if (node.code() != SimZkCode.SESSION_EXPIRED) {
                runForElection();
            }
        }));
    }

    private void watchLeader(SimZooKeeper.Client c) {
        c.exists(SimZkTree.COORDINATOR, true, res -> process.run(() -> {
            if (c != client || !wantElection) {
                return;
            }
            if (res.code() == SimZkCode.NO_NODE) {
                runForElection();
            } else if (res.ok()) {
                c.getData(SimZkTree.EPOCH, false, epoch -> process.run(() -> {
                    if (c != client) {
                        return;
                    }
                    if (epoch.ok() && epoch.data() instanceof EpochData d) {
                        deliver(new CoordinatorEvent.LeaderObserved(d.brokerId(), epoch.stat().version()));
                    } else if (!epoch.ok() && epoch.code() != SimZkCode.SESSION_EXPIRED) {
                        // As Election.observeLeader: a lost read must be tried again, or this broker names the
                        // previous coordinator to every consumer for as long as the new one lives (seed 3302).
                        retryElectionLater(c);
                    }
                }));
            } else if (res.code() != SimZkCode.SESSION_EXPIRED) {
                retryElectionLater(c);
            }
        }));
    }

    private void retryElectionLater(SimZooKeeper.Client c) {
        process.after(config.zkRetryMs(), () -> {
            if (c == client && wantElection) {
                runForElection();
            }
        });
    }

    private void resign(boolean rejoin) {
        SimZooKeeper.Client c = client;
        wantElection = false;
        c.getData(SimZkTree.COORDINATOR, false, node -> process.run(() -> {
            if (node.ok() && node.stat().ephemeralOwner() == c.sessionId()) {
                c.delete(SimZkTree.COORDINATOR, node.stat().version(), deleted -> { });
            }
            if (rejoin && c == client) {
                wantElection = true;
                runForElection();
            }
        }));
    }

    // ------------------------------------------------------------------ ZooKeeper: reads

    /** Counts outstanding reads of one logical read; the first failure wins. */
    private final class Join {
        private final ZkRead read;
        private int pending;
        private boolean failed;
        private final Runnable done;
        private final SimZooKeeper.Client c = client;
        private final long sentAtMs = process.localNowMs();

        Join(ZkRead read, Runnable done) {
            this.read = read;
            this.done = done;
        }

        void call(java.util.function.BiConsumer<SimZooKeeper.Client, Consumer<SimZkResult>> op,
                Consumer<SimZkResult> then) {
            pending++;
            op.accept(c, res -> process.run(() -> {
                if (failed || c != client) {
                    return;
                }
                if (!res.ok() && res.code() != SimZkCode.NO_NODE) {
                    failed = true;
                    deliver(new CoordinatorEvent.ZkReadFailed(read, res.code().toString()));
                    return;
                }
                then.accept(res);
                if (--pending == 0 && !failed) {
                    done.run();
                }
            }));
        }
    }

    private void read(ZkRead read) {
        if (read instanceof ZkRead.Topics) {
            Map<String, List<PartitionId>> topics = new TreeMap<>();
            Join[] join = new Join[1];
            join[0] = new Join(read, () -> deliver(new CoordinatorEvent.TopicsRead(topics, join[0].sentAtMs)));
            join[0].call((c, cb) -> c.getChildren(SimZkTree.TOPICS, true, cb), res -> {
                for (String topic : res.children()) {
                    topics.put(topic, new ArrayList<>());
                    readTopicInto(join[0], topic, topics.get(topic));
                }
            });
        } else if (read instanceof ZkRead.Topic t) {
            List<PartitionId> partitions = new ArrayList<>();
            Join[] join = new Join[1];
            join[0] = new Join(read, () -> deliver(new CoordinatorEvent.TopicRead(t.topic(), partitions, join[0].sentAtMs)));
            readTopicInto(join[0], t.topic(), partitions);
        } else if (read instanceof ZkRead.Groups) {
            List<String> groups = new ArrayList<>();
            Join[] join = new Join[1];
            join[0] = new Join(read, () -> deliver(new CoordinatorEvent.GroupsRead(groups, join[0].sentAtMs)));
            join[0].call((c, cb) -> c.getChildren(SimZkTree.GROUPS, true, cb), res -> groups.addAll(res.children()));
        } else if (read instanceof ZkRead.Group g) {
            readGroup(g);
        } else if (read instanceof ZkRead.Members m) {
            List<String> ids = new ArrayList<>();
            Join[] join = new Join[1];
            join[0] = new Join(read, () -> deliver(new CoordinatorEvent.MembersRead(m.group(), ids.stream().sorted()
                    .toList(), join[0].sentAtMs)));
            join[0].call((c, cb) -> c.getChildren(SimZkTree.ids(m.group()), true, cb), res -> ids.addAll(res.children()));
        }
    }

    private void readTopicInto(Join join, String topic, List<PartitionId> partitions) {
        String path = SimZkTree.topic(topic);
        join.call((c, cb) -> c.getChildren(path, true, cb), res -> {
            for (String broker : res.children()) {
                join.call((c, cb) -> c.getData(path + "/" + broker, true, cb), data -> {
                    if (data.data() instanceof Integer n) {
                        for (int i = 0; i < n; i++) {
                            partitions.add(new PartitionId(Integer.parseInt(broker), i));
                        }
                    } else if (data.ok()) {
                        trace("skipping garbage in " + path + "/" + broker + ": " + data.data());
                    }
                });
            }
        });
    }

    private void readGroup(ZkRead.Group read) {
        String group = read.group();
        int[] generation = {0};
        String[] assignor = {Assignors.DEFAULT_NAME};
        Map<String, Registration> registrations = new TreeMap<>();
        Map<TopicPartition, StreamId> owners = new TreeMap<>();
        Map<TopicPartition, Long> offsets = new TreeMap<>();
        Join[] join = new Join[1];
        join[0] = new Join(read, () -> deliver(new CoordinatorEvent.GroupRead(group,
                GroupSnapshot.of(generation[0], assignor[0], registrations, owners, offsets), join[0].sentAtMs)));
        Join j = join[0];
        j.call((c, cb) -> c.getData(SimZkTree.group(group), false, cb), res -> {
            if (res.data() instanceof GroupData d) {
                generation[0] = d.generation();
                assignor[0] = d.assignor();
            }
        });
        j.call((c, cb) -> c.getChildren(SimZkTree.ids(group), true, cb), res -> {
            for (String id : res.children()) {
                j.call((c, cb) -> c.getData(SimZkTree.ids(group) + "/" + id, false, cb), data -> {
                    if (data.data() instanceof Registration r) {
                        registrations.put(id, r);
                    }
                });
            }
        });
        readPartitionMap(j, SimZkTree.owners(group), (tp, data) -> {
            if (data instanceof OwnerData o) {
                owners.put(tp, o.owner());
            }
        });
        readPartitionMap(j, SimZkTree.offsets(group), (tp, data) -> {
            if (data instanceof OffsetData o) {
                offsets.put(tp, o.offset());
            }
        });
    }

    private void readPartitionMap(Join j, String root, java.util.function.BiConsumer<TopicPartition, Object> sink) {
        j.call((c, cb) -> c.getChildren(root, false, cb), topics -> {
            for (String topic : topics.children()) {
                j.call((c, cb) -> c.getChildren(root + "/" + topic, false, cb), parts -> {
                    for (String partition : parts.children()) {
                        j.call((c, cb) -> c.getData(root + "/" + topic + "/" + partition, false, cb),
                                data -> sink.accept(TopicPartition.of(topic, partition), data.data()));
                    }
                });
            }
        });
    }

    // ------------------------------------------------------------------ ZooKeeper: fenced writes

    private void write(CoordinatorEffect.Write w) {
        List<SimZkOp> ops = new ArrayList<>();
        Set<String> present = new HashSet<>();
        Set<String> absent = new HashSet<>();
        if (w.fenced()) {
            ops.add(new SimZkOp.Check(SimZkTree.EPOCH, w.epoch()));
        }
        for (ZkOp op : w.ops()) {
            translate(op, w.epoch(), ops, present, absent);
        }
        SimZooKeeper.Client c = client;
        long writeId = w.writeId();
        c.multi(ops, res -> process.run(() -> {
            if (c != client) {
                return;
            }
            if (res.ok()) {
                deliver(new CoordinatorEvent.ZkWriteDone(writeId, process.localAt(res.sentAtMs())));
            } else if (w.fenced() && res.failedOpIndex() == 0
                    && (res.code() == SimZkCode.BAD_VERSION || res.code() == SimZkCode.NO_NODE)) {
                deliver(new CoordinatorEvent.ZkWriteFenced(writeId, process.localAt(res.sentAtMs())));
            } else if (res.code() == SimZkCode.CONNECTION_LOSS || res.code() == SimZkCode.SESSION_EXPIRED) {
                deliver(new CoordinatorEvent.ZkWriteFailed(writeId, true, res.code().toString()));
            } else {
                deliver(new CoordinatorEvent.ZkWriteFailed(writeId, false,
                        res.code() + " at op " + res.failedOpIndex() + " of " + ops));
            }
        }));
    }

    private void translate(ZkOp op, int epoch, List<SimZkOp> ops, Set<String> present, Set<String> absent) {
        if (op instanceof ZkOp.PutGroup p) {
            put(SimZkTree.group(p.group()), new GroupData(p.generation(), p.assignor()), ops, present, absent);
        } else if (op instanceof ZkOp.PutRegistration p) {
            ensure(SimZkTree.ids(p.group()), ops, present, absent);
            put(SimZkTree.ids(p.group()) + "/" + p.consumerId(), p.registration(), ops, present, absent);
        } else if (op instanceof ZkOp.DeleteRegistration p) {
            delete(SimZkTree.ids(p.group()) + "/" + p.consumerId(), ops, present, absent);
        } else if (op instanceof ZkOp.PutOwner p) {
            ensure(SimZkTree.owners(p.group()) + "/" + p.partition().topic(), ops, present, absent);
            put(ownerPath(p.group(), p.partition()), new OwnerData(p.owner(), p.generation()), ops, present, absent);
        } else if (op instanceof ZkOp.DeleteOwner p) {
            delete(ownerPath(p.group(), p.partition()), ops, present, absent);
        } else if (op instanceof ZkOp.PutOffset p) {
            ensure(SimZkTree.offsets(p.group()) + "/" + p.partition().topic(), ops, present, absent);
            put(SimZkTree.offsets(p.group()) + "/" + p.partition().topic() + "/" + p.partition().partition(),
                    new OffsetData(p.offset(), p.reportedBy()), ops, present, absent);
        } else if (op instanceof ZkOp.PutHandover) {
            ops.add(new SimZkOp.SetData(SimZkTree.EPOCH, new EpochData(config.brokerId(), true), epoch));
        }
    }

    private static String ownerPath(String group, TopicPartition tp) {
        return SimZkTree.owners(group) + "/" + tp.topic() + "/" + tp.partition();
    }

    private boolean exists(String path, Set<String> present, Set<String> absent) {
        return present.contains(path) || !absent.contains(path) && zk.node(path).isPresent();
    }

    /** Creates {@code path} and its missing ancestors (persistent, empty). */
    private void ensure(String path, List<SimZkOp> ops, Set<String> present, Set<String> absent) {
        if (exists(path, present, absent)) {
            return;
        }
        int slash = path.lastIndexOf('/');
        if (slash > 0) {
            ensure(path.substring(0, slash), ops, present, absent);
        }
        ops.add(new SimZkOp.Create(path, null, false));
        present.add(path);
        absent.remove(path);
    }

    private void put(String path, Object data, List<SimZkOp> ops, Set<String> present, Set<String> absent) {
        if (exists(path, present, absent)) {
            ops.add(new SimZkOp.SetData(path, data, -1));
            return;
        }
        int slash = path.lastIndexOf('/');
        ensure(path.substring(0, slash), ops, present, absent);
        ops.add(new SimZkOp.Create(path, data, false));
        present.add(path);
        absent.remove(path);
    }

    private void delete(String path, List<SimZkOp> ops, Set<String> present, Set<String> absent) {
        if (exists(path, present, absent)) {
            ops.add(new SimZkOp.Delete(path, -1));
            present.remove(path);
            absent.add(path);
        }
    }

    private void trace(String line) {
        trace.accept("t=" + scheduler.nowMs() + " " + incarnation + " " + line);
    }
}
