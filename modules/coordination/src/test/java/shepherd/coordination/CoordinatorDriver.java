package shepherd.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import shepherd.coordination.CoordinatorEffect.Read;
import shepherd.coordination.CoordinatorEffect.Respond;
import shepherd.coordination.CoordinatorEffect.SendRequest;
import shepherd.coordination.CoordinatorEffect.Write;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.defect.Defect;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;
import shepherd.protocol.Subscription;
import shepherd.protocol.TopicStreams;

/**
 * Plays the runtime around one real {@link Coordinator}, by hand: the test chooses the time of every event and
 * answers every ZooKeeper read, write and consumer request explicitly, so an interleaving is written down step by
 * step instead of being hoped for. The driver keeps what a runtime keeps: the armed timers, the writes and reads
 * in flight and the commands still unanswered; and it records every effect so that tests can ask what was sent
 * and when.
 *
 * <p>Only {@link #fire} keeps the ZooKeeper session fresh by itself (as the broker's keep-alive reads would), and
 * only while {@link #keepSessionFresh} is set; tests of the live-session bound switch it off.
 */
final class CoordinatorDriver {
    static final int BROKER_ID = 1;
    static final long SESSION_TIMEOUT_MS = 6_000;
    static final int PING_INTERVAL_MS = 1_000;
    static final short MAX_PING_RETRIES = 2;

    /** One effect and the time it was produced. */
    record Timed(long atMs, CoordinatorEffect effect) {}

    final CoordinatorConfig config;
    final Coordinator coordinator;
    long now = 1_000;
    boolean keepSessionFresh = true;
    /** The topics the initial Topics read answers with. */
    final Map<String, List<PartitionId>> topics = new TreeMap<>();

    final List<Timed> history = new ArrayList<>();
    final Map<CoordinatorTimer, Long> timers = new LinkedHashMap<>();
    final Map<Long, Write> writes = new LinkedHashMap<>();
    /** writeId → when the Write left: its answer's {@code sentAtMs}. */
    private final Map<Long, Long> writeSentAt = new LinkedHashMap<>();
    final List<ZkRead> reads = new ArrayList<>();
    /** Commands sent to consumers and not answered yet, in the order sent. */
    final List<SendRequest> outstanding = new ArrayList<>();
    private int nextCorrelationId = 1;

    CoordinatorDriver() {
        this(Set.of());
    }

    CoordinatorDriver(Set<Defect> defects) {
        this(CoordinatorConfig.defaults(BROKER_ID, SESSION_TIMEOUT_MS), defects);
    }

    CoordinatorDriver(CoordinatorConfig config, Set<Defect> defects) {
        this.config = config;
        coordinator = new Coordinator(config, defects);
        topics.put("t", partitions(2));
    }

    // ------------------------------------------------------------------ feeding events

    List<CoordinatorEffect> feed(CoordinatorEvent event) {
        List<CoordinatorEffect> effects = coordinator.onEvent(event, now);
        for (CoordinatorEffect e : effects) {
            history.add(new Timed(now, e));
            if (e instanceof CoordinatorEffect.SetTimer set) {
                timers.put(set.timer(), set.deadlineMs());
            } else if (e instanceof CoordinatorEffect.CancelTimer cancel) {
                timers.remove(cancel.timer());
            } else if (e instanceof CoordinatorEffect.CancelAllTimers) {
                timers.clear();
            } else if (e instanceof Write w) {
                writes.put(w.writeId(), w);
                writeSentAt.put(w.writeId(), now);
            } else if (e instanceof Read r) {
                reads.add(r.read());
            } else if (e instanceof SendRequest s) {
                outstanding.add(s);
            }
        }
        return effects;
    }

    void advanceTo(long ms) {
        assertTrue(ms >= now, "time runs forwards: " + ms + " < " + now);
        now = ms;
    }

    void advance(long ms) {
        advanceTo(now + ms);
    }

    /** Moves time to the timer's deadline (if later) and fires it. */
    List<CoordinatorEffect> fire(CoordinatorTimer timer) {
        Long deadline = timers.remove(timer);
        if (deadline == null) {
            fail("timer " + timer + " is not armed; armed: " + timers);
        }
        now = Math.max(now, deadline);
        if (keepSessionFresh) {
            synced();
        }
        return feed(new CoordinatorEvent.TimerFired(timer));
    }

    long deadline(CoordinatorTimer timer) {
        Long deadline = timers.get(timer);
        if (deadline == null) {
            fail("timer " + timer + " is not armed; armed: " + timers);
        }
        return deadline;
    }

    /** A keep-alive read answered now: the session surely lives. */
    List<CoordinatorEffect> synced() {
        return feed(new CoordinatorEvent.ZkSynced(now));
    }

    // ------------------------------------------------------------------ election and loading

    List<CoordinatorEffect> boot() {
        return feed(new CoordinatorEvent.Boot());
    }

    List<CoordinatorEffect> win(int epoch) {
        return feed(new CoordinatorEvent.ElectionWon(epoch, false, now));
    }

    List<CoordinatorEffect> winAfterHandover(int epoch) {
        return feed(new CoordinatorEvent.ElectionWon(epoch, true, now));
    }

    /** Answers the initial reads: {@link #topics}, and no group. */
    List<CoordinatorEffect> loadEmpty() {
        return load(Map.of());
    }

    /** Answers the initial reads with {@link #topics} and these groups (and the group reads they cause). */
    List<CoordinatorEffect> load(Map<String, GroupSnapshot> groups) {
        List<CoordinatorEffect> effects = new ArrayList<>();
        takeRead(new ZkRead.Topics());
        effects.addAll(feed(new CoordinatorEvent.TopicsRead(topics, now)));
        takeRead(new ZkRead.Groups());
        effects.addAll(feed(new CoordinatorEvent.GroupsRead(new ArrayList<>(groups.keySet()), now)));
        groups.forEach((name, snapshot) -> {
            takeRead(new ZkRead.Group(name));
            effects.addAll(feed(new CoordinatorEvent.GroupRead(name, snapshot, now)));
        });
        return effects;
    }

    /** Boot, win {@code epoch}, load no group, end the (empty) lease wait: an ACTIVE coordinator. */
    void activate(int epoch) {
        boot();
        win(epoch);
        loadEmpty();
        fire(new CoordinatorTimer.LeaseWaitOver());
        assertEquals(Coordinator.Role.ACTIVE, coordinator.role());
    }

    void takeRead(ZkRead read) {
        assertTrue(reads.remove(read), "read " + read + " was asked for; asked: " + reads);
    }

    // ------------------------------------------------------------------ writes

    /** Commits every write in flight now (not those their commits cause). */
    List<CoordinatorEffect> answerWrites() {
        List<CoordinatorEffect> effects = new ArrayList<>();
        for (Long id : new ArrayList<>(writes.keySet())) {
            effects.addAll(commit(id));
        }
        return effects;
    }

    List<CoordinatorEffect> commit(long writeId) {
        assertTrue(writes.remove(writeId) != null, "write " + writeId + " is in flight");
        return feed(new CoordinatorEvent.ZkWriteDone(writeId, writeSentAt.remove(writeId)));
    }

    List<CoordinatorEffect> fence(long writeId) {
        assertTrue(writes.remove(writeId) != null, "write " + writeId + " is in flight");
        return feed(new CoordinatorEvent.ZkWriteFenced(writeId, writeSentAt.remove(writeId)));
    }

    /** The write's answer was lost ({@code unknownOutcome}) or it was refused. */
    List<CoordinatorEffect> failWrite(long writeId, boolean unknownOutcome) {
        assertTrue(writes.remove(writeId) != null, "write " + writeId + " is in flight");
        writeSentAt.remove(writeId);
        return feed(new CoordinatorEvent.ZkWriteFailed(writeId, unknownOutcome, "connection loss"));
    }

    Write onlyWrite() {
        assertEquals(1, writes.size(), "writes in flight: " + writes.values());
        return writes.values().iterator().next();
    }

    // ------------------------------------------------------------------ consumer requests

    RegisterRequest registerRequest(String group, String consumer, String... topicNames) {
        return new RegisterRequest(group, consumer, subscription(topicNames), true, OffsetReset.SMALLEST,
                PING_INTERVAL_MS, MAX_PING_RETRIES, -1);
    }

    static Subscription subscription(String... topicNames) {
        return new StaticSubscription(Arrays.stream(topicNames).map(t -> new TopicStreams(t, 1)).toList());
    }

    static Registration registration(String... topicNames) {
        return new Registration(subscription(topicNames), true, OffsetReset.SMALLEST, PING_INTERVAL_MS,
                MAX_PING_RETRIES);
    }

    List<CoordinatorEffect> register(long conn, String group, String consumer, String... topicNames) {
        return request(conn, registerRequest(group, consumer, topicNames));
    }

    List<CoordinatorEffect> request(long conn, Request request) {
        return feed(new CoordinatorEvent.RequestReceived(conn, nextCorrelationId++, request));
    }

    List<CoordinatorEffect> consult(long conn) {
        return request(conn, new ConsultRequest());
    }

    /** Registers and answers everything until the group is quiet again. */
    void join(long conn, String group, String consumer, String... topicNames) {
        register(conn, group, consumer, topicNames);
        settle();
    }

    // ------------------------------------------------------------------ commands to consumers

    /** The newest unanswered command of this type on {@code conn} (an older one may have been given up on). */
    <R extends Request> SendRequest pending(long conn, Class<R> type) {
        return outstanding.stream().filter(s -> s.connectionId() == conn && type.isInstance(s.request()))
                .reduce((first, second) -> second).orElseGet(() -> fail("no unanswered " + type.getSimpleName() + " on connection " + conn
                        + "; unanswered: " + outstanding));
    }

    boolean hasPending(long conn, Class<? extends Request> type) {
        return outstanding.stream().anyMatch(s -> s.connectionId() == conn && type.isInstance(s.request()));
    }

    /** The consumer on {@code conn} answers its newest unanswered command of this type. */
    List<CoordinatorEffect> answer(long conn, Class<? extends Request> type, Response response) {
        SendRequest s = pending(conn, type);
        outstanding.remove(s);
        return feed(new CoordinatorEvent.ResponseReceived(conn, s.requestId(), response));
    }

    List<CoordinatorEffect> ackStop(long conn) {
        return answer(conn, StopRequest.class, new StopResponse(ErrorCode.NONE, null));
    }

    List<CoordinatorEffect> ackStart(long conn) {
        return answer(conn, StartRequest.class, StartResponse.ok());
    }

    /** Answers writes, Stops and Starts (never Pings) until nothing is left to answer. */
    void settle() {
        for (int round = 0; round < 100; round++) {
            boolean progress = !writes.isEmpty();
            answerWrites();
            for (SendRequest s : new ArrayList<>(outstanding)) {
                if (s.request() instanceof StopRequest || s.request() instanceof StartRequest) {
                    outstanding.remove(s);
                    Response ok = s.request() instanceof StopRequest ? new StopResponse(ErrorCode.NONE, null)
                            : StartResponse.ok();
                    feed(new CoordinatorEvent.ResponseReceived(s.connectionId(), s.requestId(), ok));
                    progress = true;
                }
            }
            if (!progress) {
                return;
            }
        }
        fail("the coordinator did not settle; writes " + writes.values() + ", unanswered " + outstanding);
    }

    /** Every command ever sent on {@code conn}, in order. */
    List<Request> sent(long conn) {
        return history.stream().map(Timed::effect).filter(e -> e instanceof SendRequest s && s.connectionId() == conn)
                .map(e -> ((SendRequest) e).request()).toList();
    }

    <R extends Request> List<R> sent(long conn, Class<R> type) {
        return sent(conn).stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** When each command of this type was sent on {@code conn}. */
    List<Long> sentTimes(long conn, Class<? extends Request> type) {
        return history.stream().filter(t -> t.effect() instanceof SendRequest s && s.connectionId() == conn
                && type.isInstance(s.request())).map(Timed::atMs).toList();
    }

    /** Every answer we gave on {@code conn}, in order. */
    List<Response> responses(long conn) {
        return history.stream().map(Timed::effect).filter(e -> e instanceof Respond r && r.connectionId() == conn)
                .map(e -> ((Respond) e).response()).toList();
    }

    <R extends Response> R lastResponse(long conn, Class<R> type) {
        List<Response> all = responses(conn);
        for (int i = all.size() - 1; i >= 0; i--) {
            if (type.isInstance(all.get(i))) {
                return type.cast(all.get(i));
            }
        }
        return fail("no " + type.getSimpleName() + " on connection " + conn + "; answers: " + all);
    }

    <E extends CoordinatorEffect> List<E> all(Class<E> type) {
        return history.stream().map(Timed::effect).filter(type::isInstance).map(type::cast).toList();
    }

    static <E extends CoordinatorEffect> List<E> only(List<CoordinatorEffect> effects, Class<E> type) {
        return effects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    GroupView view(String group) {
        return coordinator.group(group).orElseGet(() -> fail("no group " + group));
    }

    static List<PartitionId> partitions(int n) {
        List<PartitionId> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new PartitionId(BROKER_ID, i));
        }
        return out;
    }
}
