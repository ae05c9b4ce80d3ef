package shepherd.consumer.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import shepherd.consumer.session.ConsumerSession.Defect;
import shepherd.consumer.session.SessionEffect.SendConsult;
import shepherd.consumer.session.SessionEvent.ConnectionClosed;
import shepherd.consumer.session.SessionEvent.Connected;
import shepherd.consumer.session.SessionEvent.ConsultAnswered;
import shepherd.consumer.session.SessionEvent.ConsultFailed;
import shepherd.consumer.session.SessionEvent.LeaveAnswered;
import shepherd.consumer.session.SessionEvent.RegisterAnswered;
import shepherd.consumer.session.SessionEvent.ShutdownRequested;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.RegisterResponse;

/**
 * Generated event sequences against the real core, checked after every step by {@link SessionChecker}; jqwik
 * shrinks a failing sequence to a short one. The coordinator side is deliberately careless: any epoch, any
 * generation, commands at any time, connections dropping, a runtime that is sometimes late with its timers.
 * Each checker has a negative control: a deliberately broken core that the same checker must catch.
 */
class SessionInvariantsTest {

    /**
     * One thing the world does to the consumer. Epochs and generations are relative to what the consumer has
     * seen ({@code epochDelta} −2..+1 from its highest epoch, {@code generationDelta} from its generation), so that
     * stale, current and newer commands all come up often.
     */
    sealed interface Action {}

    /** A well-behaved coordinator and network take the next step of the protocol, whatever it is. */
    record Cooperate() implements Action {}

    record ConsultOk(int epochDelta, int coordinatorId) implements Action {}

    record ConsultFail() implements Action {}

    record Connect() implements Action {}

    record Close() implements Action {}

    record RegisterOk(int epochDelta) implements Action {}

    record RegisterError(ErrorCode error) implements Action {}

    record Ping(int epochDelta, int generationDelta) implements Action {}

    record Stop(int epochDelta, int generationDelta) implements Action {}

    record Start(int epochDelta, int generationDelta) implements Action {}

    record FetchersDone() implements Action {}

    /** Time passes and the runtime fires due timers on time. */
    record Advance(long ms) implements Action {}

    /** Time passes and the runtime is late: no timer fires. */
    record Stall(long ms) implements Action {}

    record Shutdown() implements Action {}

    /** The coordinator answers a Leave (sent or not: a stray answer must change nothing). */
    record LeaveAnswer(ErrorCode error) implements Action {}

    @Property(tries = 1000)
    void sessionSafetyInvariantsHoldAfterEveryStep(@ForAll("scenarios") List<Action> actions) {
        SessionChecker checker = run(Defect.NONE, actions);
        assertEquals(List.of(), checker.violations);
        // The property is only worth something if the sequences reach the guarded situations; coverage says so.
        Statistics.label("fetched").collect(checker.seen("fetched"));
        Statistics.label("stale command rejected").collect(checker.seen("stale rejected"));
        Statistics.label("lease expired while fetching").collect(checker.seen("lease expired while fetching"));
        Statistics.label("start rejected").collect(checker.seen("start rejected"));
        Statistics.label("stop awaited fetchers").collect(checker.seen("stop awaited fetchers"));
        Statistics.label("leave answered").collect(checker.seen("leave answered"));
        Statistics.label("fetched").coverage(c -> c.check(true).percentage(p -> p > 40));
        Statistics.label("stale command rejected").coverage(c -> c.check(true).percentage(p -> p > 10));
        Statistics.label("lease expired while fetching").coverage(c -> c.check(true).percentage(p -> p > 2));
        Statistics.label("start rejected").coverage(c -> c.check(true).percentage(p -> p > 5));
        Statistics.label("stop awaited fetchers").coverage(c -> c.check(true).percentage(p -> p > 10));
        Statistics.label("leave answered").coverage(c -> c.check(true).percentage(p -> p > 2));
    }

    // ---------------------------------------------------------------- negative controls

    @Example
    void checkerCatchesIgnoredEpochs() {
        // Registered at epoch 3, a deposed coordinator of epoch 2 pings and starts us.
        List<Action> script = List.of(new Cooperate(), new Cooperate(), new Cooperate(), new Ping(-1, 0),
                new Start(-1, 1));
        assertEquals(List.of(), run(Defect.NONE, script).violations, "the correct core passes the same script");
        assertTrue(run(Defect.IGNORE_EPOCHS, script).violated(SessionChecker.STALE));
        assertTrue(foundBySearch(Defect.IGNORE_EPOCHS, SessionChecker.STALE), "random search finds it too");
    }

    @Example
    void checkerCatchesIgnoredLease() {
        List<Action> script = List.of(new Cooperate(), new Cooperate(), new Cooperate(), new Cooperate(),
                new Advance(SessionDriver.LEASE_MS));
        assertEquals(List.of(), run(Defect.NONE, script).violations, "the correct core passes the same script");
        assertTrue(run(Defect.IGNORE_LEASE, script).violated(SessionChecker.LEASE));
        assertTrue(foundBySearch(Defect.IGNORE_LEASE, SessionChecker.LEASE), "random search finds it too");
    }

    @Example
    void checkerCatchesStartWithoutStop() {
        List<Action> script = List.of(new Cooperate(), new Cooperate(), new Cooperate(), new Cooperate(),
                new Start(0, 1));
        assertEquals(List.of(), run(Defect.NONE, script).violations, "the correct core passes the same script");
        assertTrue(run(Defect.START_WITHOUT_STOP, script).violated(SessionChecker.START));
        assertTrue(foundBySearch(Defect.START_WITHOUT_STOP, SessionChecker.START), "random search finds it too");
    }

    /**
     * Regression, seed -8732502746232079701: a stray FetchersStopped that itself expires the lease must not confirm
     * the stop the expiry orders, or the next Start runs while the old fetchers may still be open.
     */
    @Example
    void strayFetchersStoppedDoesNotConfirmTheStopOfALeaseExpiry() {
        List<Action> script = List.of(new Cooperate(), new Cooperate(), new Cooperate(), new Cooperate(),
                new ConsultOk(0, 1), new ConsultOk(0, 1), new Stall(300), new FetchersDone(), new Cooperate(),
                new Cooperate(), new Cooperate(), new Cooperate(), new Cooperate());
        assertEquals(List.of(), run(Defect.NONE, script).violations);
    }

    @Example
    void checkerCatchesStopAcknowledgedBeforeFetchersClosed() {
        List<Action> script = List.of(new Cooperate(), new Cooperate(), new Cooperate(), new Cooperate(),
                new Cooperate());
        assertEquals(List.of(), run(Defect.NONE, script).violations, "the correct core passes the same script");
        assertTrue(run(Defect.EARLY_STOP_RESPONSE, script).violated(SessionChecker.BARRIER));
        assertTrue(foundBySearch(Defect.EARLY_STOP_RESPONSE, SessionChecker.BARRIER), "random search finds it too");
    }

    @Example
    void checkerCatchesALeaveReportedWithoutItsAnswer() {
        List<Action> script = List.of(new Cooperate(), new Cooperate(), new Cooperate(), new Cooperate(),
                new Cooperate(), new Shutdown(), new Cooperate(), new Cooperate());
        SessionChecker correct = run(Defect.NONE, script);
        assertEquals(List.of(), correct.violations, "the correct core passes the same script");
        assertTrue(correct.seen("leave answered"), "and the script reaches the answer");
        assertTrue(run(Defect.UNCONFIRMED_LEAVE, script).violated(SessionChecker.LEAVE_CONFIRMED));
        assertTrue(foundBySearch(Defect.UNCONFIRMED_LEAVE, SessionChecker.LEAVE_CONFIRMED),
                "random search finds it too");
    }

    private static boolean foundBySearch(Defect defect, String invariant) {
        return scenarioArbitrary().sampleStream().limit(3_000)
                .anyMatch(actions -> run(defect, actions).violated(invariant));
    }

    // ---------------------------------------------------------------- running a scenario

    static SessionChecker run(Defect defect, List<Action> actions) {
        SessionChecker checker = new SessionChecker(SessionDriver.LEASE_MS);
        SessionDriver d = new SessionDriver(new ConsumerSession(defect), checker);
        d.started(true);
        for (Action action : actions) {
            perform(d, action);
        }
        return checker;
    }

    private static void perform(SessionDriver d, Action action) {
        if (action instanceof Cooperate) {
            cooperate(d);
        } else if (action instanceof ConsultOk c) {
            consultOk(d, epoch(d, c.epochDelta()), c.coordinatorId());
        } else if (action instanceof ConsultFail) {
            d.send(new ConsultFailed(lastConsulted(d), "refused"));
        } else if (action instanceof Connect) {
            d.send(new Connected(lastConnected(d)));
        } else if (action instanceof Close) {
            d.send(new ConnectionClosed(lastConnected(d)));
        } else if (action instanceof RegisterOk r) {
            d.send(new RegisterAnswered(new RegisterResponse(ErrorCode.NONE, epoch(d, r.epochDelta()), "c1")));
        } else if (action instanceof RegisterError r) {
            d.send(new RegisterAnswered(RegisterResponse.error(r.error())));
        } else if (action instanceof Ping p) {
            d.ping(epoch(d, p.epochDelta()), generation(d, p.generationDelta()));
        } else if (action instanceof Stop s) {
            d.stop(epoch(d, s.epochDelta()), generation(d, s.generationDelta()));
        } else if (action instanceof Start s) {
            d.start(epoch(d, s.epochDelta()), generation(d, s.generationDelta()));
        } else if (action instanceof FetchersDone) {
            d.fetchersStopped();
        } else if (action instanceof Advance a) {
            d.advanceBy(a.ms());
        } else if (action instanceof Stall s) {
            d.skipBy(s.ms());
        } else if (action instanceof Shutdown) {
            d.send(new ShutdownRequested(SessionDriver.TAKEN));
        } else if (action instanceof LeaveAnswer a) {
            d.send(new LeaveAnswered(new LeaveResponse(a.error())));
        }
    }

    /** The next step of a well-behaved world: discovery, registration, then Start/Stop cycles. */
    private static void cooperate(SessionDriver d) {
        SessionState s = d.state;
        int epoch = Math.max(0, s.highestEpochSeen());
        if (s.fetchersStopping()) {
            d.fetchersStopped(); // the runtime finishes closing fetchers before anything else
            return;
        }
        if (s.leaveSent()) {
            d.send(new LeaveAnswered(LeaveResponse.ok()));
            return;
        }
        switch (s.status()) {
            case DISCOVERING -> {
                if (s.backoffPending()) {
                    d.advanceBy(Math.max(0, d.timers.getOrDefault(TimerKey.DISCOVERY_BACKOFF, d.nowMs) - d.nowMs));
                } else {
                    consultOk(d, Math.max(1, s.highestEpochSeen() + 1), 2); // a fresh election per rediscovery
                }
            }
            case REGISTERING -> {
                if (s.registerSent()) {
                    d.send(new RegisterAnswered(new RegisterResponse(ErrorCode.NONE, epoch, "c1")));
                } else {
                    d.send(new Connected(s.coordinator().id()));
                }
            }
            case REGISTERED -> d.start(epoch, 0);
            case FETCHING -> d.stop(epoch, s.generation());
            case STOPPED -> d.start(epoch, s.generation() + 1);
        }
    }

    private static void consultOk(SessionDriver d, int epoch, int coordinatorId) {
        d.send(new ConsultAnswered(lastConsulted(d),
                new ConsultResponse(ErrorCode.NONE, coordinatorId, epoch, SessionDriver.BROKERS)));
    }

    private static int epoch(SessionDriver d, int delta) {
        return Math.max(0, d.state.highestEpochSeen() + delta);
    }

    private static int generation(SessionDriver d, int delta) {
        return Math.max(0, d.state.generation() + delta);
    }

    private static int lastConsulted(SessionDriver d) {
        for (int i = d.all.size() - 1; i >= 0; i--) {
            if (d.all.get(i) instanceof SendConsult s) {
                return s.broker().id();
            }
        }
        return 1;
    }

    private static int lastConnected(SessionDriver d) {
        for (int i = d.all.size() - 1; i >= 0; i--) {
            if (d.all.get(i) instanceof SessionEffect.Connect c) {
                return c.coordinator().id();
            }
        }
        return 2;
    }

    // ---------------------------------------------------------------- generators

    @Provide
    Arbitrary<List<Action>> scenarios() {
        return scenarioArbitrary();
    }

    static Arbitrary<List<Action>> scenarioArbitrary() {
        return action().list().ofMinSize(4).ofMaxSize(80);
    }

    private static Arbitrary<Action> action() {
        Arbitrary<Integer> epochDelta = Arbitraries.frequency(Tuple.of(6, 0), Tuple.of(2, -1), Tuple.of(1, -2),
                Tuple.of(1, 1));
        Arbitrary<Integer> generationDelta = Arbitraries.integers().between(-1, 2);
        Arbitrary<Long> delay = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(1, SessionDriver.PING_INTERVAL_MS)),
                Tuple.of(2, Arbitraries.longs().between(1, 2 * SessionDriver.LEASE_MS)));
        return Arbitraries.frequencyOf(
                Tuple.of(20, Arbitraries.just(new Cooperate())),
                Tuple.of(2, Combinators.combine(epochDelta, Arbitraries.integers().between(1, 3)).as(ConsultOk::new)),
                Tuple.of(1, Arbitraries.just(new ConsultFail())),
                Tuple.of(1, Arbitraries.just(new Connect())),
                Tuple.of(1, Arbitraries.just(new Close())),
                Tuple.of(1, epochDelta.map(RegisterOk::new)),
                Tuple.of(1, Arbitraries.of(ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_READY,
                        ErrorCode.STALE_COORDINATOR_EPOCH).map(RegisterError::new)),
                Tuple.of(10, Combinators.combine(epochDelta, generationDelta).as(Ping::new)),
                Tuple.of(3, Combinators.combine(epochDelta, generationDelta).as(Stop::new)),
                Tuple.of(4, Combinators.combine(epochDelta, generationDelta).as(Start::new)),
                Tuple.of(2, Arbitraries.just(new FetchersDone())),
                Tuple.of(8, delay.map(Advance::new)),
                Tuple.of(2, delay.map(Stall::new)),
                Tuple.of(1, Arbitraries.just(new Shutdown())),
                Tuple.of(1, Arbitraries.of(ErrorCode.NONE, ErrorCode.NOT_COORDINATOR, ErrorCode.UNKNOWN_CONSUMER)
                        .map(LeaveAnswer::new)));
    }
}
