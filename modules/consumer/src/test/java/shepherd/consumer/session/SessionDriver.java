package shepherd.consumer.session;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import shepherd.consumer.session.SessionEffect.Respond;
import shepherd.consumer.session.SessionEffect.SetTimer;
import shepherd.consumer.session.SessionEvent.ConnectionClosed;
import shepherd.consumer.session.SessionEvent.Connected;
import shepherd.consumer.session.SessionEvent.ConsultAnswered;
import shepherd.consumer.session.SessionEvent.FetchersStopped;
import shepherd.consumer.session.SessionEvent.RegisterAnswered;
import shepherd.consumer.session.SessionEvent.RequestReceived;
import shepherd.consumer.session.SessionEvent.Started;
import shepherd.consumer.session.SessionEvent.TimerFired;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PingRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.StopRequest;
import shepherd.protocol.TopicStreams;

/**
 * A tiny runtime for tests: feeds events to the real core at a manual {@code nowMs}, keeps the timers its effects
 * set (firing them when time is advanced past their deadline) and records every effect. An optional
 * {@link SessionChecker} looks at every step.
 */
final class SessionDriver {
    static final int PING_INTERVAL_MS = 100;
    static final short MAX_PING_RETRIES = 2;
    /** L = 100 × (2 + 1). */
    static final long LEASE_MS = 300;
    static final List<BrokerInfo> BROKERS = List.of(
            new BrokerInfo(1, "h1", 9001, "h1-1"), new BrokerInfo(2, "h2", 9002, "h2-1"),
            new BrokerInfo(3, "h3", 9003, "h3-1"));
    static final List<PartitionOffset> TAKEN = List.of(new PartitionOffset("t", "1-0", 42));

    final ConsumerSession core;
    final SessionChecker checker;
    SessionState state = SessionState.unstarted();
    long nowMs;
    List<SessionEffect> last = List.of();
    final List<SessionEffect> all = new ArrayList<>();
    final Map<TimerKey, Long> timers = new EnumMap<>(TimerKey.class);
    private int nextCorrelationId = 1;

    SessionDriver() {
        this(new ConsumerSession(), null);
    }

    SessionDriver(ConsumerSession core, SessionChecker checker) {
        this.core = core;
        this.checker = checker;
    }

    static SessionConfig config(boolean autoCommit) {
        return SessionConfig.of("g", "c1", new StaticSubscription(List.of(new TopicStreams("t", 2))), autoCommit,
                OffsetReset.SMALLEST, PING_INTERVAL_MS, MAX_PING_RETRIES, BROKERS);
    }

    Step send(SessionEvent event) {
        SessionState before = state;
        Step step = core.onEvent(state, event, nowMs);
        state = step.next();
        last = step.effects();
        all.addAll(last);
        for (SessionEffect effect : last) {
            if (effect instanceof SetTimer t) {
                timers.put(t.key(), t.deadlineMs());
            } else if (effect instanceof SessionEffect.CancelTimer c) {
                timers.remove(c.key());
            }
        }
        if (checker != null) {
            checker.afterStep(before, event, nowMs, step);
        }
        return step;
    }

    /** Moves time forward, firing each due timer at its own deadline, earliest first (a punctual runtime). */
    void advanceBy(long ms) {
        long targetMs = nowMs + ms;
        while (true) {
            TimerKey due = null;
            for (Map.Entry<TimerKey, Long> e : timers.entrySet()) {
                if (e.getValue() <= targetMs && (due == null || e.getValue() < timers.get(due))) {
                    due = e.getKey();
                }
            }
            if (due == null) {
                break;
            }
            nowMs = Math.max(nowMs, timers.remove(due));
            send(new TimerFired(due));
        }
        nowMs = targetMs;
    }

    /** Moves time forward without firing anything (a runtime that is late with its timers). */
    void skipBy(long ms) {
        nowMs += ms;
    }

    // ------------------------------------------------------------ scripted coordinator

    SessionDriver started(boolean autoCommit) {
        send(new Started(config(autoCommit)));
        return this;
    }

    /** Started, consulted broker 1 (coordinator 2 of {@code epoch}), connected, registered at {@code epoch}. */
    SessionDriver registered(int epoch) {
        started(true);
        return reregister(epoch);
    }

    /** From DISCOVERING (backoff or outstanding consult): through to REGISTERED at {@code epoch}. */
    SessionDriver reregister(int epoch) {
        if (state.backoffPending()) {
            advanceBy(timers.get(TimerKey.DISCOVERY_BACKOFF) - nowMs);
        }
        send(new ConsultAnswered(state.candidates().get(state.candidateIndex()).id(),
                new ConsultResponse(ErrorCode.NONE, 2, epoch, BROKERS)));
        send(new Connected(2));
        send(new RegisterAnswered(new RegisterResponse(ErrorCode.NONE, epoch, "c1")));
        return this;
    }

    Response request(Request request) {
        int correlationId = nextCorrelationId++;
        send(new RequestReceived(correlationId, request, TAKEN));
        return responseTo(correlationId);
    }

    /** The response to {@code correlationId} among the last step's effects, or null if none was sent. */
    Response responseTo(int correlationId) {
        for (SessionEffect effect : last) {
            if (effect instanceof Respond r && r.correlationId() == correlationId) {
                return r.response();
            }
        }
        return null;
    }

    int lastCorrelationId() {
        return nextCorrelationId - 1;
    }

    Response ping(int epoch, int generation) {
        return request(new PingRequest(epoch, generation, (short) 0));
    }

    Response stop(int epoch, int generation) {
        return request(new StopRequest(epoch, generation));
    }

    Response start(int epoch, int generation) {
        return request(new StartRequest(epoch, generation, assignment(generation)));
    }

    static List<PartitionAssignment> assignment(int generation) {
        return List.of(new PartitionAssignment("t", "1-0", 10L * generation, 0));
    }

    void fetchersStopped() {
        send(new FetchersStopped(state.generation(), TAKEN));
    }

    void connectionClosed() {
        send(new ConnectionClosed(2));
    }

    boolean lastHas(Predicate<SessionEffect> p) {
        return last.stream().anyMatch(p);
    }

    <T extends SessionEffect> List<T> lastOf(Class<T> type) {
        return last.stream().filter(type::isInstance).map(type::cast).toList();
    }
}
