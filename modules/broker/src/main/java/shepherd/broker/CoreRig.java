package shepherd.broker;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import shepherd.coordination.Coordinator;
import shepherd.coordination.CoordinatorConfig;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent;
import shepherd.coordination.CoordinatorTimer;
import shepherd.coordination.GroupSnapshot;
import shepherd.coordination.ZkRead;
import shepherd.coordination.assign.PartitionId;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.Message;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;
import shepherd.protocol.TopicStreams;

/**
 * Plays the broker's runtime around one real {@link Coordinator} of its own with no I/O at all: every ZooKeeper write
 * commits at once, every Stop and Start is acknowledged at once, reads are answered from what the rig knows (the
 * topic; the recorded group, if any). What is left is the core's own work per event: what the benchmarks'
 * {@code EventLoopBenchmark} measures, and what a broker's {@link Warmup} runs before it may have to coordinate.
 * Time only moves when the caller says so, so no timer fires on its own.
 */
public final class CoreRig {
    public static final String TOPIC = "orders";
    public static final String GROUP = "g";
    static final int PING_INTERVAL_MS = 1_000;

    public final Coordinator core = new Coordinator(CoordinatorConfig.defaults(1, 6_000));
    private final List<PartitionId> partitions = new ArrayList<>();
    private final GroupSnapshot recorded;
    private final ArrayDeque<CoordinatorEvent> pending = new ArrayDeque<>();
    /** The Ping in flight per connection, answered by {@link #answerPing}. */
    private final Map<Long, Long> pingRequest = new HashMap<>();
    /**
     * Every message of the scenario, as it leaves its sender: the requests the core sends and the responses it gives,
     * and the members' requests and answers (the warm-up encodes and decodes them all).
     */
    Consumer<Message> onMessage = m -> { };
    /** What each connection's member was last started with: its Stop answer reports those partitions' offsets. */
    private final Map<Long, List<PartitionAssignment>> startedWith = new HashMap<>();
    private int correlationId;
    long now = 1_000;
    /** Events handled since construction: {@link #settle} reports how many steps a scenario took. */
    public long steps;

    /** An ACTIVE coordinator of an empty cluster: one topic of {@code partitionCount} partitions, no group. */
    public CoreRig(int partitionCount) {
        this(partitionCount, null, false);
        feed(new CoordinatorEvent.TimerFired(new CoordinatorTimer.LeaseWaitOver()));
        settle();
        if (core.role() != Coordinator.Role.ACTIVE) {
            throw new IllegalStateException("the rig's coordinator is " + core.role() + ", not ACTIVE");
        }
    }

    /**
     * A coordinator that has just won and loaded the tree, in its lease wait: {@code recorded} (may be null) is
     * the group {@link #GROUP} as ZooKeeper holds it; after a clean handover ({@code handedOver}) the wait ends once
     * every recorded member has registered again.
     */
    CoreRig(int partitionCount, GroupSnapshot recorded, boolean handedOver) {
        for (int i = 0; i < partitionCount; i++) {
            partitions.add(new PartitionId(1, i));
        }
        this.recorded = recorded;
        feed(new CoordinatorEvent.Boot());
        feed(new CoordinatorEvent.ElectionWon(1, handedOver, now));
        settle();
    }

    public static String consumerId(long connection) {
        return String.format("consumer-%04d", connection);
    }

    static RegisterRequest register(long connection) {
        return new RegisterRequest(GROUP, consumerId(connection),
                new StaticSubscription(List.of(new TopicStreams(TOPIC, 1))), false, OffsetReset.SMALLEST,
                PING_INTERVAL_MS, (short) 2, 1);
    }

    /** Registers the member on {@code connection} and answers everything until the group is stable. */
    public void join(long connection) {
        fromMember(connection, ++correlationId, register(connection));
        settle();
    }

    /** The member on {@code connection} leaves; everything answered until the group is stable again. */
    public void leave(long connection) {
        fromMember(connection, ++correlationId, new LeaveRequest(GROUP, consumerId(connection), null));
        settle();
    }

    /** The ping timer of the member on {@code connection} fires: one step; the Ping it sends is remembered. */
    public void pingDue(long connection) {
        now += 1; // a fresh time per step, as a running broker would have
        feed(new CoordinatorEvent.ZkSynced(now)); // keeps the live-session bound fresh, as keep-alives do
        feed(new CoordinatorEvent.TimerFired(new CoordinatorTimer.PingDue(GROUP, consumerId(connection))));
        pending.clear();
    }

    /** The member on {@code connection} answers its Ping: one step. */
    public void answerPing(long connection, int generation) {
        Long requestId = pingRequest.remove(connection);
        if (requestId == null) {
            throw new IllegalStateException("no Ping in flight on connection " + connection);
        }
        PingResponse answer = new PingResponse(ErrorCode.NONE, generation, null);
        onMessage.accept(answer);
        feed(new CoordinatorEvent.ResponseReceived(connection, requestId, answer));
    }

    private void fromMember(long connection, int correlationId, Request request) {
        onMessage.accept(request);
        feed(new CoordinatorEvent.RequestReceived(connection, correlationId, request));
    }

    private void answered(CoordinatorEffect.SendRequest s, Response answer) {
        onMessage.accept(answer);
        pending.add(new CoordinatorEvent.ResponseReceived(s.connectionId(), s.requestId(), answer));
    }

    /** A member's Stop answer: where it got to in each partition it fetched, one record past its start. */
    private StopResponse stopAnswer(long connection) {
        List<PartitionOffset> offsets = new ArrayList<>();
        for (PartitionAssignment a : startedWith.getOrDefault(connection, List.of())) {
            offsets.add(new PartitionOffset(a.topic(), a.partition(), Math.max(0, a.offset()) + 1));
        }
        return new StopResponse(ErrorCode.NONE, offsets);
    }

    public int generation() {
        return core.group(GROUP).orElseThrow().generation();
    }

    /** A graceful handover, every Stop answered and the record written: the core ends CLOSED. */
    void handOver() {
        feed(new CoordinatorEvent.HandoverRequested());
        settle();
    }

    /** Handles queued answers until none is left. */
    public void settle() {
        while (!pending.isEmpty()) {
            feed(pending.poll());
        }
    }

    private void feed(CoordinatorEvent event) {
        steps++;
        for (CoordinatorEffect effect : core.onEvent(event, now)) {
            answer(effect);
        }
    }

    /** What a perfect runtime would answer, queued (a real one answers later, never inside the step). */
    private void answer(CoordinatorEffect effect) {
        if (effect instanceof CoordinatorEffect.Write w) {
            pending.add(new CoordinatorEvent.ZkWriteDone(w.writeId(), now));
        } else if (effect instanceof CoordinatorEffect.Read r) {
            pending.add(readAnswer(r.read()));
        } else if (effect instanceof CoordinatorEffect.Respond r) {
            onMessage.accept(r.response());
        } else if (effect instanceof CoordinatorEffect.SendRequest s) {
            onMessage.accept(s.request());
            if (s.request() instanceof StopRequest) {
                answered(s, stopAnswer(s.connectionId()));
            } else if (s.request() instanceof StartRequest start) {
                startedWith.put(s.connectionId(), start.assigned());
                answered(s, StartResponse.ok());
            } else if (s.request() instanceof PingRequest) {
                pingRequest.put(s.connectionId(), s.requestId());
            }
        }
    }

    private CoordinatorEvent readAnswer(ZkRead read) {
        if (read instanceof ZkRead.Topics) {
            return new CoordinatorEvent.TopicsRead(Map.of(TOPIC, partitions), now);
        } else if (read instanceof ZkRead.Topic t) {
            return new CoordinatorEvent.TopicRead(t.topic(), t.topic().equals(TOPIC) ? partitions : List.of(), now);
        } else if (read instanceof ZkRead.Groups) {
            return new CoordinatorEvent.GroupsRead(recorded == null ? List.of() : List.of(GROUP), now);
        } else if (read instanceof ZkRead.Group g) {
            // The recorded group at loading; otherwise only a new group's offset re-read asks: nothing there.
            return new CoordinatorEvent.GroupRead(g.group(), recorded != null && g.group().equals(GROUP) ? recorded
                    : GroupSnapshot.empty("range"), now);
        } else if (read instanceof ZkRead.Members m) {
            return new CoordinatorEvent.MembersRead(m.group(), List.of(), now);
        }
        throw new IllegalStateException("unexpected read " + read);
    }
}
