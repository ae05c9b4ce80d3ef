package shepherd.benchmarks;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import shepherd.protocol.OffsetReset;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;
import shepherd.protocol.TopicStreams;

/**
 * Plays the broker's runtime around one real {@link Coordinator} with no I/O at all: every ZooKeeper write commits at
 * once, every Stop and Start is acknowledged at once, reads are answered from what the rig knows (the topic; no
 * groups). What is left is the core's own work per event, which is what {@link EventLoopBenchmark} measures. Time
 * only moves when the benchmark says so, so no timer fires on its own.
 */
final class CoreRig {
    static final String TOPIC = "orders";
    static final String GROUP = "g";
    static final int PING_INTERVAL_MS = 1_000;

    final Coordinator core = new Coordinator(CoordinatorConfig.defaults(1, 6_000));
    private final List<PartitionId> partitions = new ArrayList<>();
    private final ArrayDeque<CoordinatorEvent> pending = new ArrayDeque<>();
    /** The Ping in flight per connection, answered by {@link #answerPing}. */
    private final Map<Long, Long> pingRequest = new HashMap<>();
    private int correlationId;
    long now = 1_000;
    /** Events handled since construction: {@link #settle} reports how many steps a scenario took. */
    long steps;

    CoreRig(int partitionCount) {
        for (int i = 0; i < partitionCount; i++) {
            partitions.add(new PartitionId(1, i));
        }
        feed(new CoordinatorEvent.Boot());
        feed(new CoordinatorEvent.ElectionWon(1, false, now));
        settle();
        feed(new CoordinatorEvent.TimerFired(new CoordinatorTimer.LeaseWaitOver()));
        settle();
        if (core.role() != Coordinator.Role.ACTIVE) {
            throw new IllegalStateException("the rig's coordinator is " + core.role() + ", not ACTIVE");
        }
    }

    static String consumerId(long connection) {
        return String.format("consumer-%04d", connection);
    }

    RegisterRequest register(long connection) {
        return new RegisterRequest(GROUP, consumerId(connection),
                new StaticSubscription(List.of(new TopicStreams(TOPIC, 1))), false, OffsetReset.SMALLEST,
                PING_INTERVAL_MS, (short) 2, 1);
    }

    /** Registers the member on {@code connection} and answers everything until the group is stable. */
    void join(long connection) {
        feed(new CoordinatorEvent.RequestReceived(connection, ++correlationId, register(connection)));
        settle();
    }

    /** The member on {@code connection} leaves; everything answered until the group is stable again. */
    void leave(long connection) {
        feed(new CoordinatorEvent.RequestReceived(connection, ++correlationId,
                new LeaveRequest(GROUP, consumerId(connection), null)));
        settle();
    }

    /** The ping timer of the member on {@code connection} fires: one step; the Ping it sends is remembered. */
    void pingDue(long connection) {
        now += 1; // a fresh time per step, as a running broker would have
        feed(new CoordinatorEvent.ZkSynced(now)); // keeps the live-session bound fresh, as keep-alives do
        feed(new CoordinatorEvent.TimerFired(new CoordinatorTimer.PingDue(GROUP, consumerId(connection))));
        pending.clear();
    }

    /** The member on {@code connection} answers its Ping: one step. */
    void answerPing(long connection, int generation) {
        Long requestId = pingRequest.remove(connection);
        if (requestId == null) {
            throw new IllegalStateException("no Ping in flight on connection " + connection);
        }
        feed(new CoordinatorEvent.ResponseReceived(connection, requestId,
                new PingResponse(ErrorCode.NONE, generation, null)));
    }

    int generation() {
        return core.group(GROUP).orElseThrow().generation();
    }

    /** Handles queued answers until none is left. */
    void settle() {
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
        } else if (effect instanceof CoordinatorEffect.SendRequest s) {
            if (s.request() instanceof StopRequest) {
                pending.add(new CoordinatorEvent.ResponseReceived(s.connectionId(), s.requestId(),
                        new StopResponse(ErrorCode.NONE, null)));
            } else if (s.request() instanceof StartRequest) {
                pending.add(new CoordinatorEvent.ResponseReceived(s.connectionId(), s.requestId(),
                        StartResponse.ok()));
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
            return new CoordinatorEvent.GroupsRead(List.of(), now);
        } else if (read instanceof ZkRead.Group g) {
            // Only a new group's offset re-read asks for this here: nothing committed, nothing reset.
            return new CoordinatorEvent.GroupRead(g.group(), GroupSnapshot.empty("range"), now);
        } else if (read instanceof ZkRead.Members m) {
            return new CoordinatorEvent.MembersRead(m.group(), List.of(), now);
        }
        throw new IllegalStateException("unexpected read " + read);
    }
}
