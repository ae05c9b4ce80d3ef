package shepherd.coordination;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import shepherd.coordination.CoordinatorEffect.Write;
import shepherd.coordination.assign.Assignors;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.coordination.defect.Defect;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.OffsetCommitRequest;
import shepherd.protocol.OffsetCommitResponse;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PartitionResult;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;
import shepherd.protocol.TopicStreams;

/**
 * The system under test of the stateful properties: one elected, loaded {@link Coordinator} and a runtime around
 * it that is faithful and cooperative. Every fenced write commits (applied to an in-memory ZooKeeper), every read
 * is answered and arms its watch, timers fire in deadline order, and simulated consumers answer Ping, Stop and
 * Start at once, unless they are hung. Messages queue in one FIFO: actions choose how much of it to deliver, so a
 * registration can land in the middle of a run; time only moves after the queue is drained, so a responsive
 * consumer never misses a deadline. The harness also keeps the {@link CoordinatorModel} in step and records the
 * evidence the invariants need (the order of Stop and Start per consumer, every Start ever applied, every offset
 * ever written).
 */
final class CoordinatorStatefulHarness {
    static final String GROUP = "grp";
    static final int EPOCH = 1;
    static final List<String> CONSUMERS = List.of("c0", "c1", "c2", "c3");
    static final List<String> TOPICS = List.of("a", "b", "c");
    /** How long a settle runs beyond the last failure deadline: leases waited out, runs finished. */
    static final long SETTLE_MS = 4_000;
    private static final int DELIVERIES_MAX = 200_000;
    private static final long ZK = -1;

    /** Small timings, so that failures, leases and retries all happen within a few simulated seconds. */
    static CoordinatorConfig config() {
        return new CoordinatorConfig(1, 3_000, 1_000, 50, 10, 200, 500, 2, 50, 1_000, 1_000, 200, GroupAssignors.DEFAULT);
    }

    // ------------------------------------------------------------------ what travels

    private sealed interface InFlight {
        long connectionId();
    }

    private record ToCoordinator(long connectionId, CoordinatorEvent event) implements InFlight {}

    private record ToConsumer(long connectionId, long requestId, Request request) implements InFlight {}

    private record Reply(long connectionId, int correlationId, Response response) implements InFlight {}

    private record Commit(Write write, long sentAtMs) implements InFlight {
        public long connectionId() {
            return ZK;
        }
    }

    private record Answer(ZkRead read, long sentAtMs) implements InFlight {
        public long connectionId() {
            return ZK;
        }
    }

    private record PendingCommit(String consumerId, TopicPartition partition, long offset, boolean ownedWhenSent) {}

    /** One incarnation of a consumer process: one connection, well-behaved unless hung. */
    static final class SimConsumer {
        final String id;
        final long connectionId;
        final boolean responsive;
        boolean open = true;
        boolean registered;
        final List<String> commands = new ArrayList<>();
        int startedGeneration = -1;
        boolean fetching;
        /** What Start({@link #startedGeneration}) gave it; kept after Stop, for commits of its stopped position. */
        final TreeMap<TopicPartition, Integer> assigned = new TreeMap<>();
        final TreeMap<TopicPartition, Long> positions = new TreeMap<>();
        final Map<Integer, Set<TopicPartition>> startedWith = new TreeMap<>();
        final List<OffsetCommitRequest> commitsSent = new ArrayList<>();

        SimConsumer(String id, long connectionId, boolean responsive) {
            this.id = id;
            this.connectionId = connectionId;
            this.responsive = responsive;
        }

        String lastCommand() {
            return commands.isEmpty() ? "" : commands.get(commands.size() - 1);
        }

        @Override
        public String toString() {
            return id + "@" + connectionId + (responsive ? "" : "(hung)") + (open ? "" : "(closed)") + commands;
        }
    }

    // ------------------------------------------------------------------ state

    final Coordinator coordinator;
    final CoordinatorModel model;
    long now;
    private boolean settled;

    private final LinkedHashMap<CoordinatorTimer, Long> timers = new LinkedHashMap<>();
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();

    // the ZooKeeper tree
    private final TreeMap<String, List<PartitionId>> zkTopics = new TreeMap<>();
    private boolean zkGroupExists;
    private int zkGeneration;
    private String zkAssignor = Assignors.DEFAULT_NAME;
    private final TreeMap<String, Registration> zkRegistrations = new TreeMap<>();
    private final TreeMap<TopicPartition, StreamId> zkOwners = new TreeMap<>();
    private final TreeMap<TopicPartition, Long> zkOffsets = new TreeMap<>();
    private boolean topicsWatch;
    private final Set<String> topicWatches = new TreeSet<>();
    private boolean groupsWatch;
    private boolean groupWatch;

    // consumers
    private final Map<Long, SimConsumer> connections = new TreeMap<>();
    private final Map<String, SimConsumer> current = new TreeMap<>();
    private final Map<Integer, PendingCommit> commits = new TreeMap<>();
    /** correlation id → connection of every Register, OffsetCommit and Leave not answered yet. */
    private final Map<Integer, Long> unanswered = new TreeMap<>();
    private long nextConnectionId = 100;
    private int nextCorrelationId = 1;

    // evidence
    private final Map<Integer, Map<TopicPartition, String>> startedBy = new TreeMap<>();
    private final Map<String, List<String>> violations = new TreeMap<>();
    private final ArrayDeque<String> notices = new ArrayDeque<>();

    private CoordinatorStatefulHarness(Set<Defect> defects) {
        this.coordinator = new Coordinator(config(), defects);
        zkTopics.put("a", List.of(new PartitionId(0, 0), new PartitionId(0, 1)));
        zkTopics.put("b", List.of(new PartitionId(1, 0)));
        this.model = new CoordinatorModel(zkTopics);
    }

    /** A coordinator that won epoch 1, read the topics and an empty group list, and waited out its lease wait. */
    static CoordinatorStatefulHarness elected(Set<Defect> defects) {
        CoordinatorStatefulHarness h = new CoordinatorStatefulHarness(defects);
        h.feed(new CoordinatorEvent.ElectionWon(EPOCH, false, 0));
        h.advance(0);
        if (h.coordinator.role() != Coordinator.Role.ACTIVE) {
            throw new IllegalStateException("not active after election: " + h.coordinator.role());
        }
        return h;
    }

    // ================================================================== actions

    /** Every action but a settle makes the quiesced check moot until the next settle. */
    void beginAction() {
        settled = false;
    }

    void register(String id, SortedMap<String, Integer> streamsByTopic, int pingIntervalMs, short maxPingRetries,
            boolean responsive) {
        SimConsumer c = new SimConsumer(id, nextConnectionId++, responsive);
        connections.put(c.connectionId, c);
        current.put(id, c);
        model.registered(id, streamsByTopic, responsive, pingIntervalMs, maxPingRetries, now);
        List<TopicStreams> topics = new ArrayList<>();
        streamsByTopic.forEach((t, n) -> topics.add(new TopicStreams(t, n)));
        unanswered.put(nextCorrelationId, c.connectionId);
        feed(new CoordinatorEvent.RequestReceived(c.connectionId, nextCorrelationId++, new RegisterRequest(GROUP, id,
                new StaticSubscription(topics), false, OffsetReset.SMALLEST, pingIntervalMs, maxPingRetries, EPOCH)));
    }

    void leave(String id) {
        SimConsumer c = usable(id);
        if (c == null) {
            return;
        }
        model.left(id);
        c.fetching = false; // the session core closes its fetchers before it sends Leave
        unanswered.put(nextCorrelationId, c.connectionId);
        feed(new CoordinatorEvent.RequestReceived(c.connectionId, nextCorrelationId++, new LeaveRequest(GROUP, id, null)));
    }

    void closeConnection(String id) {
        SimConsumer c = usable(id);
        if (c == null) {
            return;
        }
        model.connectionClosed(id, now);
        close(c.connectionId, true);
    }

    /**
     * An OffsetCommit for one partition, with the consumer's generation: one it was started with ({@code owned},
     * when it has any), or one it was not. While it fetches, it commits its position moved on by {@code delta}
     * (so a later Stop reports it too); once stopped, it can only commit the position it stopped at.
     */
    void commitOffset(String id, boolean owned, int pick, long delta) {
        SimConsumer c = usable(id);
        if (c == null) {
            return;
        }
        List<TopicPartition> mine = new ArrayList<>(c.assigned.keySet());
        TopicPartition tp;
        long offset;
        if (owned && !mine.isEmpty()) {
            tp = mine.get(pick % mine.size());
            if (c.fetching) {
                offset = c.positions.getOrDefault(tp, 0L) + delta;
                c.positions.put(tp, offset);
            } else if (c.positions.containsKey(tp)) {
                offset = c.positions.get(tp);
            } else {
                return;
            }
            model.offsetReported(tp, offset);
        } else {
            List<TopicPartition> others = new ArrayList<>();
            zkTopics.forEach((t, ps) -> ps.forEach(p -> others.add(new TopicPartition(t, p))));
            others.removeAll(mine);
            others.add(new TopicPartition("a", new PartitionId(9, 9))); // a partition that does not exist
            tp = others.get(pick % others.size());
            offset = delta;
        }
        send(c, new OffsetCommitRequest(GROUP, id, EPOCH, c.startedGeneration,
                List.of(new PartitionOffset(tp.topic(), tp.partition().toString(), offset))));
    }

    /**
     * The consumer sends again one of its earlier OffsetCommits ({@code back} counts from the latest): a retried or
     * reordered report, which may carry a lower offset than one committed since and must not move it back.
     */
    void repeatCommit(String id, int back) {
        SimConsumer c = usable(id);
        if (c == null || c.commitsSent.isEmpty()) {
            return;
        }
        send(c, c.commitsSent.get(c.commitsSent.size() - 1 - back % c.commitsSent.size()));
    }

    private void send(SimConsumer c, OffsetCommitRequest request) {
        c.commitsSent.add(request);
        PartitionOffset po = request.offsets().get(0);
        TopicPartition tp = TopicPartition.of(po.topic(), po.partition());
        boolean owned = c.startedWith.getOrDefault(request.generation(), Set.of()).contains(tp);
        int correlationId = nextCorrelationId++;
        commits.put(correlationId, new PendingCommit(c.id, tp, po.offset(), owned));
        unanswered.put(correlationId, c.connectionId);
        feed(new CoordinatorEvent.RequestReceived(c.connectionId, correlationId, request));
    }

    /** Partitions appear on a broker; the topic is created if new. The watch fires if armed. */
    void addPartitions(String topic, int count, int brokerId) {
        List<PartitionId> existing = zkTopics.getOrDefault(topic, List.of());
        int next = existing.stream().filter(p -> p.brokerId() == brokerId).mapToInt(p -> p.n() + 1).max().orElse(0);
        List<PartitionId> added = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            added.add(new PartitionId(brokerId, next + i));
        }
        List<PartitionId> all = new ArrayList<>(existing);
        all.addAll(added);
        zkTopics.put(topic, List.copyOf(all));
        model.partitionsAdded(topic, added);
        if (existing.isEmpty()) {
            if (topicsWatch) {
                topicsWatch = false;
                inFlight.add(new ToCoordinator(ZK, new CoordinatorEvent.TopicChange()));
            }
        } else if (topicWatches.remove(topic)) {
            inFlight.add(new ToCoordinator(ZK, new CoordinatorEvent.TopicPartitionChange(topic)));
        }
    }

    /** Delivers the next {@code n} messages (ZooKeeper answers, commands, responses) at the current instant. */
    void deliver(int n) {
        for (int i = 0; i < n && !inFlight.isEmpty(); i++) {
            deliverOne();
        }
    }

    void deliverAll() {
        int delivered = 0;
        while (!inFlight.isEmpty()) {
            if (++delivered > DELIVERIES_MAX) {
                throw new AssertionError("no quiescence after " + DELIVERIES_MAX + " messages; last notices " + notices);
            }
            deliverOne();
        }
    }

    /** Drains the queue, then fires every timer due within {@code ms}, in deadline order, draining after each. */
    void advance(long ms) {
        long target = now + ms;
        deliverAll();
        while (true) {
            Map.Entry<CoordinatorTimer, Long> next = timers.entrySet().stream().filter(e -> e.getValue() <= target)
                    .min(Comparator.comparingLong(Map.Entry::getValue)).orElse(null);
            if (next == null) {
                break;
            }
            timers.remove(next.getKey());
            now = Math.max(now, next.getValue());
            feed(new CoordinatorEvent.TimerFired(next.getKey()));
            deliverAll();
        }
        now = target;
        model.timePassed(now);
    }

    /** Quiesce: deliver everything and let time run past every failure deadline and the leases after it. */
    void settle() {
        advance(Math.max(now, model.lastDeadlineMs()) + SETTLE_MS - now);
        settled = true;
    }

    // ================================================================== the runtime

    /** The consumers that fetch now (responsive, connected, started and not stopped since). */
    List<String> fetching() {
        List<String> out = new ArrayList<>();
        current.values().forEach(c -> {
            if (c.open && c.responsive && c.fetching && !c.assigned.isEmpty()) {
                out.add(c.id);
            }
        });
        return out;
    }

    private SimConsumer usable(String id) {
        SimConsumer c = current.get(id);
        return c != null && c.open && c.responsive ? c : null;
    }

    private void feed(CoordinatorEvent event) {
        List<CoordinatorEffect> effects = coordinator.onEvent(event, now);
        observe(effects);
        handle(effects);
    }

    /** The first RebalanceEnded that disagreed with the view at the end of its step, if any. */
    private String observationMismatch;

    /** A step's RebalanceEnded says what the group's view says once the step is over. */
    private void observe(List<CoordinatorEffect> effects) {
        for (CoordinatorEffect e : effects) {
            if (e instanceof CoordinatorEffect.RebalanceEnded ended && observationMismatch == null) {
                GroupView v = coordinator.group(ended.group()).orElse(null);
                boolean agree = v != null && !v.running() && ended.generation() == v.generation()
                        && ended.stable() == v.stable() && ended.members().equals(v.members())
                        && ended.partitions() == v.owners().size();
                if (!agree) {
                    observationMismatch = ended + ", the view " + v;
                }
            }
        }
    }

    private void handle(List<CoordinatorEffect> effects) {
        for (CoordinatorEffect e : effects) {
            if (e instanceof CoordinatorEffect.Read r) {
                inFlight.add(new Answer(r.read(), now));
            } else if (e instanceof CoordinatorEffect.KeepAlive) {
                inFlight.add(new ToCoordinator(ZK, new CoordinatorEvent.ZkSynced(now)));
            } else if (e instanceof Write w) {
                if (!w.fenced() || w.epoch() != EPOCH) {
                    violation("coordinatorStaysActiveAndFenced", "unfenced or foreign-epoch write " + w);
                }
                inFlight.add(new Commit(w, now));
            } else if (e instanceof CoordinatorEffect.SendRequest s) {
                SimConsumer c = connections.get(s.connectionId());
                if (c != null && c.open) {
                    inFlight.add(new ToConsumer(s.connectionId(), s.requestId(), s.request()));
                }
            } else if (e instanceof CoordinatorEffect.Respond r) {
                SimConsumer c = connections.get(r.connectionId());
                if (c != null && c.open) {
                    inFlight.add(new Reply(r.connectionId(), r.correlationId(), r.response()));
                }
            } else if (e instanceof CoordinatorEffect.CloseConnection c) {
                close(c.connectionId(), false);
            } else if (e instanceof CoordinatorEffect.SetTimer t) {
                timers.put(t.timer(), t.deadlineMs());
            } else if (e instanceof CoordinatorEffect.CancelTimer t) {
                timers.remove(t.timer());
            } else if (e instanceof CoordinatorEffect.CancelAllTimers) {
                timers.clear();
            } else if (e instanceof CoordinatorEffect.Notice n) {
                notices.addLast("@" + now + " " + n.message());
                if (notices.size() > 20) {
                    notices.removeFirst();
                }
            } else if (e instanceof CoordinatorEffect.Assigned) {
                continue; // checked through the owners it leads to
            } else if (e instanceof CoordinatorEffect.RebalanceEnded || e instanceof CoordinatorEffect.GenerationReached
                    || e instanceof CoordinatorEffect.MemberRemoved) {
                continue; // observations: RebalanceEnded is checked against the view (observationsAgreeWithTheView)
            } else {
                violation("coordinatorStaysActiveAndFenced", "in a cooperative world the coordinator did " + e);
            }
        }
    }

    /** A connection ends: what was in flight on it is lost; the coordinator hears of it unless it closed it. */
    private void close(long connectionId, boolean tellCoordinator) {
        SimConsumer c = connections.get(connectionId);
        if (c == null || !c.open) {
            return;
        }
        c.open = false;
        inFlight.removeIf(f -> f.connectionId() == connectionId);
        if (tellCoordinator) {
            feed(new CoordinatorEvent.ConnectionClosed(connectionId));
        }
    }

    private void deliverOne() {
        InFlight f = inFlight.poll();
        if (f instanceof ToCoordinator t) {
            feed(t.event());
        } else if (f instanceof ToConsumer t) {
            onCommand(connections.get(t.connectionId()), t.requestId(), t.request());
        } else if (f instanceof Reply r) {
            onReply(connections.get(r.connectionId()), r.correlationId(), r.response());
        } else if (f instanceof Commit c) {
            commitWrite(c.write(), c.sentAtMs());
        } else if (f instanceof Answer a) {
            answer(a.read(), a.sentAtMs());
        }
    }

    private void answer(ZkRead read, long sentAtMs) {
        if (read instanceof ZkRead.Topics) {
            topicsWatch = true;
            topicWatches.addAll(zkTopics.keySet());
            feed(new CoordinatorEvent.TopicsRead(new TreeMap<>(zkTopics), sentAtMs));
        } else if (read instanceof ZkRead.Topic t) {
            if (zkTopics.containsKey(t.topic())) {
                topicWatches.add(t.topic());
            }
            feed(new CoordinatorEvent.TopicRead(t.topic(), zkTopics.getOrDefault(t.topic(), List.of()), sentAtMs));
        } else if (read instanceof ZkRead.Groups) {
            groupsWatch = true;
            feed(new CoordinatorEvent.GroupsRead(zkGroupExists ? List.of(GROUP) : List.of(), sentAtMs));
        } else if (read instanceof ZkRead.Group g) {
            groupWatch = true;
            GroupSnapshot snapshot = zkGroupExists
                    ? GroupSnapshot.of(zkGeneration, zkAssignor, zkRegistrations, zkOwners, zkOffsets)
                    : GroupSnapshot.empty(Assignors.DEFAULT_NAME);
            feed(new CoordinatorEvent.GroupRead(g.group(), snapshot, sentAtMs));
        } else if (read instanceof ZkRead.Members m) {
            groupWatch = true;
            feed(new CoordinatorEvent.MembersRead(m.group(),
                    zkGroupExists ? List.copyOf(zkRegistrations.keySet()) : List.of(), sentAtMs));
        }
    }

    /** The multi commits whole: check, apply, fire the watches it trips, answer. */
    private void commitWrite(Write w, long sentAtMs) {
        TreeMap<TopicPartition, StreamId> ownersBefore = new TreeMap<>(zkOwners);
        boolean existed = zkGroupExists;
        Set<String> idsBefore = new TreeSet<>(zkRegistrations.keySet());
        for (ZkOp op : w.ops()) {
            if (!GROUP.equals(op.group())) {
                violation("coordinatorStaysActiveAndFenced", "write outside the group: " + op);
                continue;
            }
            zkGroupExists = true;
            if (op instanceof ZkOp.PutGroup p) {
                if (p.generation() < zkGeneration) {
                    violation("zookeeperMatchesTheCoordinatorsMirror", "generation went back: " + zkGeneration + " -> " + p);
                }
                zkGeneration = p.generation();
                zkAssignor = p.assignor();
            } else if (op instanceof ZkOp.PutRegistration p) {
                zkRegistrations.put(p.consumerId(), p.registration());
            } else if (op instanceof ZkOp.DeleteRegistration p) {
                zkRegistrations.remove(p.consumerId());
            } else if (op instanceof ZkOp.PutOwner p) {
                zkOwners.put(p.partition(), p.owner());
            } else if (op instanceof ZkOp.DeleteOwner p) {
                zkOwners.remove(p.partition());
            } else if (op instanceof ZkOp.PutOffset p) {
                StreamId owner = ownersBefore.get(p.partition());
                if (owner == null || !owner.consumerId().equals(p.reportedBy())) {
                    violation("offsetsNeverGoBackwards", "offset written for " + p.partition() + " reported by "
                            + p.reportedBy() + ", owned by " + owner);
                }
                Long previous = zkOffsets.get(p.partition());
                if (previous != null && p.offset() < previous) {
                    violation("offsetsNeverGoBackwards", p.partition() + " went from " + previous + " to " + p.offset());
                }
                zkOffsets.put(p.partition(), p.offset());
            } else {
                violation("coordinatorStaysActiveAndFenced", "unexpected op " + op);
            }
        }
        if (!existed && groupsWatch) {
            groupsWatch = false;
            inFlight.add(new ToCoordinator(ZK, new CoordinatorEvent.GroupChange()));
        }
        if (!idsBefore.equals(zkRegistrations.keySet()) && groupWatch) {
            groupWatch = false;
            inFlight.add(new ToCoordinator(ZK, new CoordinatorEvent.GroupMemberChange(GROUP)));
        }
        feed(new CoordinatorEvent.ZkWriteDone(w.writeId(), sentAtMs));
    }

    /** A well-behaved consumer (DESIGN §6 session core) applies a command and answers it; a hung one does nothing. */
    private void onCommand(SimConsumer c, long requestId, Request request) {
        if (c == null || !c.open || !c.responsive) {
            return;
        }
        Response response;
        if (request instanceof PingRequest) {
            response = new PingResponse(ErrorCode.NONE, c.startedGeneration, null);
        } else if (request instanceof StopRequest stop) {
            c.commands.add("Stop(" + stop.generation() + ")");
            List<PartitionOffset> offsets = new ArrayList<>();
            if (c.fetching && c.startedGeneration == stop.generation()) {
                c.positions.forEach((tp, offset) -> {
                    if (c.assigned.containsKey(tp)) {
                        offsets.add(new PartitionOffset(tp.topic(), tp.partition().toString(), offset));
                        model.offsetReported(tp, offset); // committed with the owners, if the answer arrives
                    }
                });
            }
            c.fetching = false;
            response = new StopResponse(ErrorCode.NONE, offsets.isEmpty() ? null : offsets);
        } else if (request instanceof StartRequest start) {
            int g = start.generation();
            String expected = "Stop(" + (g - 1) + ")";
            if (!c.lastCommand().equals(expected)) {
                violation("startOnlyAfterStopOfTheSameMember", c.id + " got Start(" + g + ") after "
                        + (c.lastCommand().isEmpty() ? "nothing" : c.lastCommand()) + ", not " + expected + ": " + c);
            }
            c.commands.add("Start(" + g + ")");
            c.startedGeneration = g;
            c.fetching = true;
            c.assigned.clear();
            c.positions.clear();
            Map<TopicPartition, String> byPartition = startedBy.computeIfAbsent(g, x -> new TreeMap<>());
            for (PartitionAssignment pa : start.assigned()) {
                TopicPartition tp = TopicPartition.of(pa.topic(), pa.partition());
                if (c.assigned.put(tp, pa.stream()) != null) {
                    violation("noTwoConsumersStartedWithTheSamePartitionInOneGeneration",
                            c.id + " got " + tp + " twice in Start(" + g + ")");
                }
                String other = byPartition.putIfAbsent(tp, c.id);
                if (other != null && !other.equals(c.id)) {
                    violation("noTwoConsumersStartedWithTheSamePartitionInOneGeneration",
                            tp + " started on " + other + " and " + c.id + " in generation " + g);
                }
                if (pa.offset() >= 0) {
                    c.positions.put(tp, pa.offset());
                }
            }
            c.startedWith.put(g, new TreeSet<>(c.assigned.keySet()));
            response = StartResponse.ok();
        } else {
            return;
        }
        inFlight.add(new ToCoordinator(c.connectionId,
                new CoordinatorEvent.ResponseReceived(c.connectionId, requestId, response)));
    }

    private void onReply(SimConsumer c, int correlationId, Response response) {
        if (c == null || !c.open) {
            return;
        }
        if (unanswered.remove(correlationId) == null) {
            violation("coordinatorStaysActiveAndFenced", "an answer to no request: " + response);
        }
        if (response instanceof LeaveResponse) {
            close(c.connectionId, true); // the consumer has shut down
        } else if (response instanceof RegisterResponse r) {
            c.registered = r.errorCode() == ErrorCode.NONE;
            if (!c.registered) {
                violation("coordinatorStaysActiveAndFenced", c.id + " could not register: " + r);
            }
        } else if (response instanceof OffsetCommitResponse r) {
            PendingCommit p = commits.remove(correlationId);
            if (p == null || r.errorCode() != ErrorCode.NONE) {
                return;
            }
            for (PartitionResult result : r.results()) {
                if (result.errorCode() != ErrorCode.NONE) {
                    continue;
                }
                if (!p.ownedWhenSent()) {
                    violation("offsetsNeverGoBackwards", "an OffsetCommit of " + p + " for a partition it was not "
                            + "started with in that generation was accepted");
                }
                model.offsetAccepted(p.partition(), p.offset());
            }
        }
    }

    private void violation(String invariant, String what) {
        violations.computeIfAbsent(invariant, k -> new ArrayList<>()).add("@" + now + " " + what);
    }

    // ================================================================== invariants

    private void check(String invariant, boolean ok, String what) {
        if (!ok) {
            violation(invariant, what);
        }
        List<String> found = violations.getOrDefault(invariant, List.of());
        if (!found.isEmpty()) {
            throw new AssertionError(invariant + " violated: " + found + "\n  group: "
                    + coordinator.group(GROUP).orElse(null) + "\n  consumers: " + current.values()
                    + "\n  recent notices: " + notices);
        }
    }

    /** Owners, offsets and generation in ZooKeeper equal the coordinator's mirror of them. */
    void zookeeperMatchesTheCoordinatorsMirror() {
        GroupView v = coordinator.group(GROUP).orElse(null);
        int generation = v == null ? 0 : v.generation();
        SortedMap<TopicPartition, StreamId> owners = v == null ? new TreeMap<>() : v.owners();
        SortedMap<TopicPartition, Long> offsets = v == null ? new TreeMap<>() : v.offsets();
        check("zookeeperMatchesTheCoordinatorsMirror",
                generation == zkGeneration && owners.equals(zkOwners) && offsets.equals(zkOffsets),
                "ZooKeeper has generation " + zkGeneration + " owners " + zkOwners + " offsets " + zkOffsets
                        + ", the coordinator's mirror " + generation + " " + owners + " " + offsets);
    }

    /** Every RebalanceEnded the core emitted agreed with its view of the group at the end of that step. */
    void observationsAgreeWithTheView() {
        check("observationsAgreeWithTheView", observationMismatch == null, String.valueOf(observationMismatch));
    }

    /** Every offset written is the owner's and not below the one before (FencedWrites, D10). */
    void offsetsNeverGoBackwards() {
        check("offsetsNeverGoBackwards", true, "");
    }

    void noTwoConsumersStartedWithTheSamePartitionInOneGeneration() {
        check("noTwoConsumersStartedWithTheSamePartitionInOneGeneration", true, "");
    }

    void startOnlyAfterStopOfTheSameMember() {
        check("startOnlyAfterStopOfTheSameMember", true, "");
    }

    /** No stand-down, resignation or unfenced write: nothing in a cooperative world justifies one. */
    void coordinatorStaysActiveAndFenced() {
        check("coordinatorStaysActiveAndFenced", coordinator.role() == Coordinator.Role.ACTIVE,
                "role " + coordinator.role());
    }

    /**
     * After a settle: the group is stable, its members are the model's, every subscribed partition is owned by
     * one stream of a member subscribed to its topic, every member fetches exactly its share in the current
     * generation, and every committed offset is one its owner reported, at least the largest acknowledged.
     */
    void quiescedGroupIsStableAndMatchesTheModel() {
        if (!settled) {
            return;
        }
        String name = "quiescedGroupIsStableAndMatchesTheModel";
        SortedSet<String> members = model.members();
        GroupView v = coordinator.group(GROUP).orElse(null);
        if (v == null) {
            check(name, members.isEmpty(), "no group, but the model has members " + members);
            return;
        }
        check(name, inFlight.isEmpty(), "messages still in flight: " + inFlight);
        unanswered.forEach((correlationId, connectionId) -> check(name, !connections.get(connectionId).open,
                "request " + correlationId + " on open connection " + connectionId + " was never answered"));
        check(name, v.stable(), "not stable: " + v);
        check(name, v.members().equals(members), "members " + v.members() + ", the model's " + members);
        check(name, zkRegistrations.keySet().equals(members),
                "registrations in ZooKeeper " + zkRegistrations.keySet() + ", the model's members " + members);
        for (String id : members) {
            Registration r = zkRegistrations.get(id);
            StaticSubscription s = (StaticSubscription) r.subscription();
            TreeMap<String, Integer> streams = new TreeMap<>();
            s.topics().forEach(t -> streams.put(t.topic(), t.streams()));
            check(name, streams.equals(model.consumer(id).streamsByTopic),
                    id + " registered with " + streams + ", the model's " + model.consumer(id).streamsByTopic);
        }
        SortedMap<TopicPartition, StreamId> owners = v.owners();
        TreeSet<TopicPartition> existing = new TreeSet<>();
        model.topics().forEach((topic, partitions) -> {
            SortedMap<String, Integer> subscribers = model.subscribers(topic);
            for (PartitionId p : partitions) {
                TopicPartition tp = new TopicPartition(topic, p);
                existing.add(tp);
                StreamId owner = owners.get(tp);
                if (subscribers.isEmpty()) {
                    check(name, owner == null, tp + " is owned by " + owner + " but nobody subscribes to " + topic);
                } else {
                    check(name, owner != null && subscribers.containsKey(owner.consumerId())
                                    && owner.n() < subscribers.get(owner.consumerId()),
                            tp + " is owned by " + owner + ", not by a stream of " + subscribers);
                }
            }
        });
        check(name, existing.containsAll(owners.keySet()), "owners of partitions that do not exist: " + owners);
        for (String id : members) {
            SimConsumer c = current.get(id);
            TreeMap<TopicPartition, Integer> share = new TreeMap<>();
            owners.forEach((tp, s) -> {
                if (s.consumerId().equals(id)) {
                    share.put(tp, s.n());
                }
            });
            check(name, c != null && c.open && c.fetching && c.startedGeneration == v.generation()
                            && c.assigned.equals(share),
                    id + " should fetch " + share + " in generation " + v.generation() + " but is " + c
                            + (c == null ? "" : " fetching=" + c.fetching + " " + c.assigned));
        }
        model.committed().forEach((tp, acknowledged) -> check(name,
                zkOffsets.containsKey(tp) && zkOffsets.get(tp) >= acknowledged,
                "offset of " + tp + " in ZooKeeper is " + zkOffsets.get(tp) + ", below the acknowledged " + acknowledged));
        zkOffsets.forEach((tp, offset) -> check(name,
                model.reported().getOrDefault(tp, new TreeSet<>()).contains(offset),
                "offset of " + tp + " in ZooKeeper is " + offset + ", which no owner reported: " + model.reported()));
    }

    /** Every invariant, in the order the property registers them (for the hand-rolled runs). */
    void checkAll() {
        zookeeperMatchesTheCoordinatorsMirror();
        observationsAgreeWithTheView();
        offsetsNeverGoBackwards();
        noTwoConsumersStartedWithTheSamePartitionInOneGeneration();
        startOnlyAfterStopOfTheSameMember();
        coordinatorStaysActiveAndFenced();
        quiescedGroupIsStableAndMatchesTheModel();
    }

    @Override
    public String toString() {
        return "harness@" + now + "ms";
    }
}
