package shepherd.consumer.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import shepherd.consumer.session.SessionEffect.CancelTimer;
import shepherd.consumer.session.SessionEffect.CloseConnection;
import shepherd.consumer.session.SessionEffect.Connect;
import shepherd.consumer.session.SessionEffect.Respond;
import shepherd.consumer.session.SessionEffect.SendConsult;
import shepherd.consumer.session.SessionEffect.SendLeave;
import shepherd.consumer.session.SessionEffect.SendRegister;
import shepherd.consumer.session.SessionEffect.SetTimer;
import shepherd.consumer.session.SessionEffect.StartFetchers;
import shepherd.consumer.session.SessionEffect.StopFetchers;
import shepherd.consumer.session.SessionEffect.Terminate;
import shepherd.consumer.session.SessionEvent.Connected;
import shepherd.consumer.session.SessionEvent.ConsultAnswered;
import shepherd.consumer.session.SessionEvent.ConsultFailed;
import shepherd.consumer.session.SessionEvent.FetchersStopped;
import shepherd.consumer.session.SessionEvent.LeaveAnswered;
import shepherd.consumer.session.SessionEvent.RegisterAnswered;
import shepherd.consumer.session.SessionEvent.ShutdownRequested;
import shepherd.consumer.session.SessionEvent.Started;
import shepherd.consumer.session.SessionEvent.TimerFired;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Response;
import shepherd.protocol.StopResponse;

/** Each transition and each rejection of the session core, driven by hand with a manual clock. */
class ConsumerSessionTest {

    private static final int EPOCH = 5;

    // ---------------------------------------------------------------- discovery

    @Test
    void startConsultsTheFirstBootstrapBroker() {
        SessionDriver d = new SessionDriver().started(true);
        assertEquals(SessionStatus.DISCOVERING, d.state.status());
        assertEquals(List.of(new SendConsult(SessionDriver.BROKERS.get(0))), d.last);
    }

    @Test
    void failedConsultTriesTheNextBroker() {
        SessionDriver d = new SessionDriver().started(true);
        d.send(new ConsultFailed(1, "connection refused"));
        assertEquals(List.of(new SendConsult(SessionDriver.BROKERS.get(1))), d.last);
    }

    @Test
    void consultWithoutCoordinatorTriesTheNextBroker() {
        SessionDriver d = new SessionDriver().started(true);
        d.send(new ConsultAnswered(1, new ConsultResponse(ErrorCode.NONE, -1, -1, SessionDriver.BROKERS)));
        assertEquals(List.of(new SendConsult(SessionDriver.BROKERS.get(1))), d.last);
    }

    @Test
    void allBrokersFailingBacksOffExponentiallyThenRetries() {
        SessionDriver d = new SessionDriver().started(true);
        for (int id = 1; id <= 3; id++) {
            d.send(new ConsultFailed(id, "down"));
        }
        assertEquals(List.of(new SetTimer(TimerKey.DISCOVERY_BACKOFF, 100)), d.last);
        d.send(new ConsultFailed(1, "late duplicate"));
        assertEquals(List.of(), d.last, "no Consult is outstanding during the backoff");
        d.advanceBy(100);
        assertEquals(List.of(new SendConsult(SessionDriver.BROKERS.get(0))), d.last);
        for (int id = 1; id <= 3; id++) {
            d.send(new ConsultFailed(id, "down"));
        }
        assertEquals(List.of(new SetTimer(TimerKey.DISCOVERY_BACKOFF, 100 + 200)), d.last, "doubled");
    }

    @Test
    void consultAnswerConnectsToTheCoordinatorAndRegistersWithTheHighestEpochSeen() {
        SessionDriver d = new SessionDriver().started(true);
        d.send(new ConsultAnswered(1, new ConsultResponse(ErrorCode.NONE, 2, EPOCH, SessionDriver.BROKERS)));
        assertEquals(SessionStatus.REGISTERING, d.state.status());
        assertEquals(List.of(new Connect(SessionDriver.BROKERS.get(1))), d.last);
        d.send(new Connected(2));
        SendRegister register = d.lastOf(SendRegister.class).get(0);
        assertEquals(EPOCH, register.request().highestEpochSeen());
        assertEquals("g", register.request().groupId());
        assertEquals(SessionDriver.PING_INTERVAL_MS, register.request().pingIntervalMs());
    }

    @Test
    void consultFromABrokerThatLagsBehindTheElectionIsSkipped() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.connectionClosed(); // the first round after a membership goes at once
        int asked = d.lastOf(SendConsult.class).get(0).broker().id();
        d.send(new ConsultAnswered(asked, new ConsultResponse(ErrorCode.NONE, 3, EPOCH - 1, SessionDriver.BROKERS)));
        assertEquals(SessionStatus.DISCOVERING, d.state.status());
        assertEquals(1, d.lastOf(SendConsult.class).size(), "asks the next broker instead");
    }

    /**
     * Broker 1 has not seen that broker 2 was deposed and keeps naming it, with the epoch we already accept; broker
     * 2 refuses the registration. The next round asks broker 1 last, so broker 3, which knows the new coordinator,
     * is heard first: a round that began at broker 1 again would follow it to the same refusal until it caught up.
     */
    @Test
    void theRoundAfterARefusalStartsAfterTheBrokerWhoseAnswerItFollowed() {
        SessionDriver d = new SessionDriver().started(true);
        ConsultResponse stale = new ConsultResponse(ErrorCode.NONE, 2, EPOCH, SessionDriver.BROKERS);
        d.send(new ConsultAnswered(1, stale));
        d.send(new Connected(2));
        d.send(new RegisterAnswered(RegisterResponse.error(ErrorCode.NOT_COORDINATOR)));
        d.advanceBy(100);

        assertEquals(List.of(new SendConsult(SessionDriver.BROKERS.get(1))), d.lastOf(SendConsult.class));
        d.send(new ConsultAnswered(2, ConsultResponse.error(ErrorCode.COORDINATOR_NOT_READY)));
        assertEquals(List.of(new SendConsult(SessionDriver.BROKERS.get(2))), d.lastOf(SendConsult.class));
        d.send(new ConsultAnswered(3, new ConsultResponse(ErrorCode.NONE, 3, EPOCH + 1, SessionDriver.BROKERS)));
        assertEquals(List.of(new Connect(SessionDriver.BROKERS.get(2))), d.last);
        assertEquals(List.of(SessionDriver.BROKERS.get(1), SessionDriver.BROKERS.get(2), SessionDriver.BROKERS.get(0)),
                d.state.candidates(), "broker 1 last");
    }

    @Test
    void answerFromABrokerNotAskedIsIgnored() {
        SessionDriver d = new SessionDriver().started(true);
        d.send(new ConsultAnswered(3, new ConsultResponse(ErrorCode.NONE, 2, EPOCH, SessionDriver.BROKERS)));
        assertEquals(SessionStatus.DISCOVERING, d.state.status());
        assertEquals(List.of(), d.last);
    }

    // ---------------------------------------------------------------- registration

    @Test
    void registrationSuccessStartsTheLease() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        assertEquals(SessionStatus.REGISTERED, d.state.status());
        assertEquals(List.of(new SetTimer(TimerKey.LEASE, d.nowMs + SessionDriver.LEASE_MS)), d.last);
        assertEquals(EPOCH, d.state.highestEpochSeen());
    }

    @Test
    void retriableRegisterErrorsRediscoverWithBackoff() {
        for (ErrorCode error : List.of(ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_READY)) {
            SessionDriver d = new SessionDriver().started(true);
            d.send(new ConsultAnswered(1, new ConsultResponse(ErrorCode.NONE, 2, EPOCH, SessionDriver.BROKERS)));
            d.send(new Connected(2));
            d.send(new RegisterAnswered(RegisterResponse.error(error)));
            assertEquals(SessionStatus.DISCOVERING, d.state.status(), error.toString());
            assertEquals(List.of(new CloseConnection(2), new SetTimer(TimerKey.DISCOVERY_BACKOFF, 100)), d.last);
            assertFalse(d.state.terminated());
        }
    }

    @Test
    void invalidRegistrationTerminatesInsteadOfRetrying() {
        SessionDriver d = new SessionDriver().started(true);
        d.send(new ConsultAnswered(1, new ConsultResponse(ErrorCode.NONE, 2, EPOCH, SessionDriver.BROKERS)));
        d.send(new Connected(2));
        d.send(new RegisterAnswered(RegisterResponse.error(ErrorCode.INVALID_REGISTRATION)));
        assertTrue(d.state.terminated());
        assertEquals(ErrorCode.INVALID_REGISTRATION, d.lastOf(Terminate.class).get(0).error());
        assertTrue(d.lastHas(e -> e instanceof CloseConnection));
        int effectsSoFar = d.all.size();
        d.advanceBy(60_000);
        assertEquals(effectsSoFar, d.all.size(), "nothing is retried");
        assertEquals(java.util.Map.of(), d.timers, "no timer is left running");
    }

    @Test
    void registrationAcceptedByAStaleCoordinatorIsRefused() {
        SessionDriver d = new SessionDriver().started(true);
        d.send(new ConsultAnswered(1, new ConsultResponse(ErrorCode.NONE, 2, EPOCH, SessionDriver.BROKERS)));
        d.send(new Connected(2));
        d.send(new RegisterAnswered(new RegisterResponse(ErrorCode.NONE, EPOCH - 1, "c1")));
        assertEquals(SessionStatus.DISCOVERING, d.state.status());
        assertFalse(d.state.hasLease());
    }

    @Test
    void connectFailureRediscovers() {
        SessionDriver d = new SessionDriver().started(true);
        d.send(new ConsultAnswered(1, new ConsultResponse(ErrorCode.NONE, 2, EPOCH, SessionDriver.BROKERS)));
        d.connectionClosed();
        assertEquals(SessionStatus.DISCOVERING, d.state.status());
        assertTrue(d.state.backoffPending());
    }

    @Test
    void successfulRegistrationResetsTheBackoff() {
        SessionDriver d = new SessionDriver().started(true);
        d.send(new ConsultAnswered(1, new ConsultResponse(ErrorCode.NONE, 2, EPOCH, SessionDriver.BROKERS)));
        d.connectionClosed(); // a failed attempt: backs off
        d.reregister(EPOCH);
        d.connectionClosed(); // a membership lost: at once
        assertEquals(1, d.lastOf(SendConsult.class).size());
        failTheRound(d);
        assertEquals(d.nowMs + 100, d.timers.get(TimerKey.DISCOVERY_BACKOFF), "the initial backoff again");
    }

    @Test
    void theFirstRoundAfterAMembershipGoesAtOnceAndTheNextBacksOff() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.connectionClosed();
        assertEquals(SessionStatus.DISCOVERING, d.state.status());
        assertFalse(d.state.backoffPending());
        assertEquals(1, d.lastOf(SendConsult.class).size(), "consults without waiting");
        failTheRound(d); // e.g. no coordinator elected yet
        assertTrue(d.state.backoffPending());
        assertEquals(d.nowMs + 100, d.timers.get(TimerKey.DISCOVERY_BACKOFF));
        d.advanceBy(100);
        failTheRound(d);
        assertEquals(d.nowMs + 200, d.timers.get(TimerKey.DISCOVERY_BACKOFF), "doubling from there");
    }

    /** Every candidate of the outstanding round answers that it knows no coordinator. */
    private static void failTheRound(SessionDriver d) {
        while (!d.state.backoffPending()) {
            int asked = d.state.candidates().get(d.state.candidateIndex()).id();
            d.send(new ConsultAnswered(asked, new ConsultResponse(ErrorCode.NONE, ConsultResponse.NONE,
                    ConsultResponse.NONE, SessionDriver.BROKERS)));
        }
    }

    // ---------------------------------------------------------------- ping and the epoch rule

    @Test
    void validPingRefreshesLease() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.advanceBy(250);
        Response response = d.ping(EPOCH, 0);
        assertEquals(new PingResponse(ErrorCode.NONE, -1, SessionDriver.TAKEN), response);
        assertEquals(d.nowMs + SessionDriver.LEASE_MS, d.state.leaseDeadlineMs());
        d.advanceBy(250);
        assertEquals(SessionStatus.REGISTERED, d.state.status(), "500 ms after registration, 250 after the ping");
    }

    @Test
    void pingOffsetsAreNullIffAutoCommitIsOff() {
        SessionDriver d = new SessionDriver().started(false).reregister(EPOCH);
        assertNull(((PingResponse) d.ping(EPOCH, 0)).offsets());
    }

    @Test
    void pingReportsTheGenerationBeingFetched() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 7);
        assertEquals(7, ((PingResponse) d.ping(EPOCH, 7)).generation());
    }

    @Test
    void stalePingIsRejectedAndDoesNotRefreshTheLease() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        long deadline = d.state.leaseDeadlineMs();
        d.advanceBy(100);
        assertEquals(ErrorCode.STALE_COORDINATOR_EPOCH, d.ping(EPOCH - 1, 0).errorCode());
        assertEquals(deadline, d.state.leaseDeadlineMs());
    }

    @Test
    void higherEpochIsAdopted() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        assertEquals(ErrorCode.NONE, d.ping(EPOCH + 2, 0).errorCode());
        assertEquals(EPOCH + 2, d.state.highestEpochSeen());
        assertEquals(ErrorCode.STALE_COORDINATOR_EPOCH, d.ping(EPOCH, 0).errorCode(), "the old epoch is now stale");
    }

    @Test
    void requestsOnlyAConsumerSendsAreAnsweredInvalidRequest() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        assertEquals(ErrorCode.INVALID_REQUEST, d.request(new ConsultRequest()).errorCode());
        assertEquals(SessionStatus.REGISTERED, d.state.status());
    }

    // ---------------------------------------------------------------- start

    @Test
    void firstStartFromRegisteredStartsFetchers() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        assertEquals(ErrorCode.NONE, d.start(EPOCH, 3).errorCode());
        assertEquals(SessionStatus.FETCHING, d.state.status());
        assertEquals(3, d.state.generation());
        assertEquals(List.of(new StartFetchers(3, SessionDriver.assignment(3))), d.lastOf(StartFetchers.class));
        assertTrue(d.last.get(0) instanceof StartFetchers, "fetchers start before the StartResponse goes out");
    }

    @Test
    void staleEpochStartIsRejected() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        assertEquals(ErrorCode.STALE_COORDINATOR_EPOCH, d.start(EPOCH - 1, 1).errorCode());
        assertEquals(SessionStatus.REGISTERED, d.state.status());
        assertTrue(d.lastOf(StartFetchers.class).isEmpty());
    }

    @Test
    void startWhileFetchingIsRejected() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        assertEquals(ErrorCode.ILLEGAL_GENERATION, d.start(EPOCH, 2).errorCode());
        assertEquals(1, d.state.generation());
        assertTrue(d.lastOf(StartFetchers.class).isEmpty());
    }

    @Test
    void repeatedStartOfTheCurrentGenerationIsAcknowledgedNotReapplied() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        assertEquals(ErrorCode.NONE, d.start(EPOCH, 1).errorCode());
        assertTrue(d.lastOf(StartFetchers.class).isEmpty());
    }

    @Test
    void startWithoutStopOfSameGenerationIsRejected() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        d.stop(EPOCH, 1);
        d.fetchersStopped();
        assertEquals(ErrorCode.ILLEGAL_GENERATION, d.start(EPOCH, 1).errorCode(), "generation 1 was just ended");
        assertEquals(SessionStatus.STOPPED, d.state.status());
        assertEquals(ErrorCode.NONE, d.start(EPOCH, 2).errorCode());
        assertEquals(SessionStatus.FETCHING, d.state.status());
    }

    @Test
    void startBeforeFetchersStoppedIsRejected() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        d.stop(EPOCH, 1);
        assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, d.start(EPOCH, 2).errorCode());
        assertEquals(SessionStatus.STOPPED, d.state.status());
    }

    // ---------------------------------------------------------------- stop

    @Test
    void stopResponseWaitsForFetchersStopped() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        assertNull(d.stop(EPOCH, 1), "no response before the fetchers are closed");
        int stopId = d.lastCorrelationId();
        assertEquals(List.of(new StopFetchers(1)), d.last);
        assertEquals(SessionStatus.STOPPED, d.state.status());
        d.send(new FetchersStopped(1, SessionDriver.TAKEN));
        assertEquals(List.of(new Respond(stopId, new StopResponse(ErrorCode.NONE, SessionDriver.TAKEN))), d.last);
    }

    @Test
    void secondStopWhileFetchersCloseIsAnsweredWithTheFirst() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        d.stop(EPOCH, 1);
        assertNull(d.stop(EPOCH, 1));
        d.fetchersStopped();
        assertEquals(2, d.lastOf(Respond.class).size());
    }

    @Test
    void stopWhenAlreadyStoppedAnswersAtOnce() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        d.stop(EPOCH, 1);
        d.fetchersStopped();
        assertEquals(new StopResponse(ErrorCode.NONE, SessionDriver.TAKEN), d.stop(EPOCH, 2));
        assertTrue(d.lastOf(StopFetchers.class).isEmpty());
        assertEquals(2, d.state.generation(), "the end of generation 2 is acknowledged too");
        assertEquals(ErrorCode.ILLEGAL_GENERATION, d.start(EPOCH, 2).errorCode());
    }

    @Test
    void stopBeforeAnyStartAnswersAtOnceAndBarsThatGeneration() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        assertEquals(ErrorCode.NONE, d.stop(EPOCH, 4).errorCode());
        assertEquals(SessionStatus.STOPPED, d.state.status());
        assertEquals(ErrorCode.ILLEGAL_GENERATION, d.start(EPOCH, 4).errorCode());
        assertEquals(ErrorCode.NONE, d.start(EPOCH, 5).errorCode());
    }

    @Test
    void stopOffsetsAreNullWithoutAutoCommit() {
        SessionDriver d = new SessionDriver().started(false).reregister(EPOCH);
        d.start(EPOCH, 1);
        d.stop(EPOCH, 1);
        d.fetchersStopped();
        assertNull(((StopResponse) d.lastOf(Respond.class).get(0).response()).offsets());
    }

    @Test
    void staleEpochStopIsRejected() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        assertEquals(ErrorCode.STALE_COORDINATOR_EPOCH, d.stop(EPOCH - 1, 1).errorCode());
        assertEquals(SessionStatus.FETCHING, d.state.status());
    }

    @Test
    void stopOfAnEarlierGenerationIsRejected() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 3);
        assertEquals(ErrorCode.ILLEGAL_GENERATION, d.stop(EPOCH, 2).errorCode());
        assertEquals(SessionStatus.FETCHING, d.state.status());
    }

    @Test
    void tooManyPendingStopsAreToldToRetry() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        for (int i = 0; i < ConsumerSession.PENDING_STOPS_MAX; i++) {
            assertNull(d.stop(EPOCH, 1));
        }
        assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, d.stop(EPOCH, 1).errorCode());
    }

    // ---------------------------------------------------------------- lease and connection loss

    @Test
    void leaseExpiryStopsFetchingAndRediscovers() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        d.advanceBy(SessionDriver.LEASE_MS);
        assertEquals(SessionStatus.DISCOVERING, d.state.status());
        assertEquals(List.of(new StopFetchers(1), new CancelTimer(TimerKey.LEASE), new CloseConnection(2),
                new SendConsult(d.state.candidates().get(0))), d.last, "rediscovers at once");
        assertEquals(List.of(), d.state.assignment());
    }

    @Test
    void eventAfterTheLeaseDeadlineExpiresTheLeaseFirst() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        d.skipBy(SessionDriver.LEASE_MS); // the runtime is late with the LEASE timer
        assertNull(d.ping(EPOCH, 1), "a ping at the deadline cannot revive the lease");
        assertEquals(SessionStatus.DISCOVERING, d.state.status());
        assertTrue(d.lastHas(e -> e.equals(new StopFetchers(1))));
    }

    @Test
    void leaseTimerFiringBeforeTheDeadlineIsIgnored() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.advanceBy(200);
        d.ping(EPOCH, 0);
        d.send(new TimerFired(TimerKey.LEASE)); // an old firing, delivered after the lease was renewed
        assertEquals(SessionStatus.REGISTERED, d.state.status());
    }

    @Test
    void connectionClosedStopsFetchingAndRediscovers() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        d.connectionClosed();
        assertEquals(SessionStatus.DISCOVERING, d.state.status());
        assertEquals(new StopFetchers(1), d.last.get(0));
        assertFalse(d.state.hasLease());
    }

    @Test
    void pendingStopIsDroppedWhenTheConnectionCloses() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        d.stop(EPOCH, 1);
        d.connectionClosed();
        d.fetchersStopped();
        assertTrue(d.lastOf(Respond.class).isEmpty(), "nobody to answer on a closed connection");
    }

    @Test
    void startAfterRediscoveryWaitsForTheOldFetchersToClose() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        d.advanceBy(SessionDriver.LEASE_MS);
        d.reregister(EPOCH + 1);
        assertEquals(ErrorCode.REBALANCE_IN_PROGRESS, d.start(EPOCH + 1, 2).errorCode());
        assertNull(d.stop(EPOCH + 1, 1), "nor is a Stop acknowledged before they are closed");
        d.fetchersStopped();
        assertEquals(1, d.lastOf(Respond.class).size());
        assertEquals(ErrorCode.NONE, d.start(EPOCH + 1, 2).errorCode());
    }

    // ---------------------------------------------------------------- shutdown

    @Test
    void shutdownWhileFetchingLeavesOnlyAfterFetchersStopped() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        d.send(new ShutdownRequested(List.of()));
        assertEquals(List.of(new StopFetchers(1)), d.last);
        assertFalse(d.state.terminated());
        d.send(new FetchersStopped(1, SessionDriver.TAKEN));
        SendLeave leave = d.lastOf(SendLeave.class).get(0);
        assertEquals(SessionDriver.TAKEN, leave.request().offsets());
        assertEquals("c1", leave.request().consumerId());
        assertFalse(d.lastHas(e -> e instanceof CloseConnection), "the connection stays open for the answer");
        assertFalse(d.state.terminated());
        d.send(new LeaveAnswered(LeaveResponse.ok()));
        assertTrue(d.lastHas(e -> e instanceof CloseConnection));
        assertEquals(ErrorCode.NONE, d.lastOf(Terminate.class).get(0).error());
        assertTrue(d.state.terminated());
    }

    @Test
    void shutdownWhileRegisteredLeavesAtOnce() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.send(new ShutdownRequested(SessionDriver.TAKEN));
        assertEquals(1, d.lastOf(SendLeave.class).size());
        d.send(new LeaveAnswered(LeaveResponse.ok()));
        assertTrue(d.state.terminated());
    }

    @Test
    void aRefusedLeaveEndsTheSessionWithTheCoordinatorsError() {
        SessionDriver d = leaveSent();
        d.send(new LeaveAnswered(LeaveResponse.error(ErrorCode.NOT_COORDINATOR)));
        Terminate end = d.lastOf(Terminate.class).get(0);
        assertEquals(ErrorCode.NOT_COORDINATOR, end.error());
        assertTrue(end.reason().contains("final offsets may not be committed"), end.reason());
        assertTrue(d.lastHas(e -> e instanceof CloseConnection));
    }

    @Test
    void aLeaveWhoseConnectionClosesUnansweredEndsUnknown() {
        SessionDriver d = leaveSent();
        d.connectionClosed();
        assertEquals(ErrorCode.UNKNOWN, d.lastOf(Terminate.class).get(0).error());
        assertTrue(d.lastOf(SendConsult.class).isEmpty(), "no rediscovery: the consumer is leaving");
    }

    @Test
    void theLeaseBoundsTheWaitForTheLeaveAnswer() {
        SessionDriver d = leaveSent();
        d.advanceBy(SessionDriver.LEASE_MS);
        assertTrue(d.state.terminated());
        Terminate end = d.lastOf(Terminate.class).get(0);
        assertEquals(ErrorCode.UNKNOWN, end.error());
        assertTrue(end.reason().contains("lease ran out"), end.reason());
        assertTrue(d.lastHas(e -> e instanceof CloseConnection));
    }

    @Test
    void commandsAfterTheLeaveAreNotObeyed() {
        SessionDriver d = leaveSent();
        assertNull(d.ping(EPOCH, 1), "no answer: the coordinator sent it before it saw the Leave");
        assertNull(d.start(EPOCH, 2));
        assertTrue(d.last.isEmpty(), d.last.toString());
        d.send(new LeaveAnswered(LeaveResponse.ok()));
        assertEquals(ErrorCode.NONE, d.lastOf(Terminate.class).get(0).error());
    }

    private static SessionDriver leaveSent() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        d.send(new ShutdownRequested(List.of()));
        d.send(new FetchersStopped(1, SessionDriver.TAKEN));
        assertEquals(1, d.lastOf(SendLeave.class).size());
        return d;
    }

    @Test
    void shutdownWhileDiscoveringJustEnds() {
        SessionDriver d = new SessionDriver().started(true);
        d.send(new ShutdownRequested(List.of()));
        assertTrue(d.lastOf(SendLeave.class).isEmpty());
        assertTrue(d.state.terminated());
    }

    @Test
    void leaseExpiryWhileLeavingEndsTheSessionWithoutRediscovery() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.start(EPOCH, 1);
        d.send(new ShutdownRequested(List.of()));
        d.skipBy(SessionDriver.LEASE_MS);
        d.send(new TimerFired(TimerKey.DISCOVERY_BACKOFF));
        assertTrue(d.state.terminated());
        assertTrue(d.lastOf(SendConsult.class).isEmpty());
        assertEquals(ErrorCode.NONE, d.lastOf(Terminate.class).get(0).error());
    }

    @Test
    void eventsAfterTerminationAreIgnored() {
        SessionDriver d = new SessionDriver().registered(EPOCH);
        d.send(new ShutdownRequested(List.of()));
        assertNull(d.ping(EPOCH, 0));
        assertEquals(List.of(), d.last);
    }

    // ---------------------------------------------------------------- misuse

    @Test
    void eventBeforeStartedIsABug() {
        SessionDriver d = new SessionDriver();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> d.send(new Connected(1)));
        assertTrue(e.getMessage().startsWith("Event before Started"));
    }

    @Test
    void startedTwiceIsABug() {
        SessionDriver d = new SessionDriver().started(true);
        assertThrows(IllegalStateException.class, () -> d.send(new Started(SessionDriver.config(true))));
    }
}
