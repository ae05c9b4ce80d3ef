package shepherd.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static shepherd.coordination.CoordinatorDriver.only;
import static shepherd.coordination.CoordinatorDriver.registration;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import shepherd.coordination.CoordinatorEffect.CancelAllTimers;
import shepherd.coordination.CoordinatorEffect.CancelTimer;
import shepherd.coordination.CoordinatorEffect.CloseConnection;
import shepherd.coordination.CoordinatorEffect.HandedOver;
import shepherd.coordination.CoordinatorEffect.Notice;
import shepherd.coordination.CoordinatorEffect.Read;
import shepherd.coordination.CoordinatorEffect.Resign;
import shepherd.coordination.CoordinatorEffect.Respond;
import shepherd.coordination.CoordinatorEffect.RunForElection;
import shepherd.coordination.CoordinatorEffect.SendRequest;
import shepherd.coordination.CoordinatorEffect.SetTimer;
import shepherd.coordination.CoordinatorEffect.Write;
import shepherd.coordination.CoordinatorTimer.Barrier;
import shepherd.coordination.CoordinatorTimer.LeaseWaitOver;
import shepherd.coordination.CoordinatorTimer.PingDue;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.coordination.assign.UnknownAssignorException;
import shepherd.coordination.defect.Defect;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.DescribeGroupsRequest;
import shepherd.protocol.DescribeGroupsResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.GroupDescription;
import shepherd.protocol.MemberDescription;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.OffsetCommitRequest;
import shepherd.protocol.OffsetCommitResponse;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionDescription;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PartitionResult;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;
import shepherd.protocol.Subscription;
import shepherd.protocol.TopicStreams;
import shepherd.protocol.WildcardKind;
import shepherd.protocol.WildcardSubscription;

/**
 * The coordinator core driven step by step, the way the broker's event loop drives it, with every ZooKeeper and
 * consumer answer chosen by the test: each behaviour of DESIGN §5–§6, and each seed defect it fixes, is pinned to
 * the exact interleaving that exercises it. Negative controls switch a {@link Defect} back on and show the
 * corresponding test would notice. A test whose comment lists numbered steps pins the interleaving that a
 * plausible coordinator gets wrong, and what goes wrong in it.
 */
class CoordinatorTest {
    static final int EPOCH = 5;
    static final String G = "g";
    static final long LEASE_MS = (long) CoordinatorDriver.PING_INTERVAL_MS * (CoordinatorDriver.MAX_PING_RETRIES + 1);

    CoordinatorDriver d = new CoordinatorDriver();

    static TopicPartition tp(int n) {
        return new TopicPartition("t", new PartitionId(CoordinatorDriver.BROKER_ID, n));
    }

    static StreamId stream(String consumer) {
        return new StreamId(consumer, 0);
    }

    static PartitionOffset offset(int partition, long offset) {
        return new PartitionOffset("t", tp(partition).partition().toString(), offset);
    }

    static boolean hasOp(List<Write> writes, ZkOp op) {
        return writes.stream().anyMatch(w -> w.ops().contains(op));
    }

    static <T> T single(List<T> items) {
        assertEquals(1, items.size(), "exactly one expected: " + items);
        return items.get(0);
    }

    /** Two members, a on connection 1 and b on 2, each owning one partition of t in generation 2. */
    void twoStableMembers() {
        d.activate(EPOCH);
        d.join(1, G, "a", "t");
        d.join(2, G, "b", "t");
        GroupView v = d.view(G);
        assertTrue(v.stable(), v.toString());
        assertEquals(2, v.generation());
        assertEquals(Map.of(tp(0), stream("a"), tp(1), stream("b")), v.owners());
    }

    int stopsOfGeneration2(long conn) {
        return (int) d.sent(conn, StopRequest.class).stream().filter(s -> s.generation() == 2).count();
    }

    /** Seed coordinatorStartup: nothing is served before the election is won and the tree is read. */
    @Nested
    class ElectionAndStartup {
        @Test
        void bootRunsForElection() {
            assertEquals(List.of(new RunForElection()), d.boot());
            assertFalse(d.coordinator.isCoordinator());
        }

        @Test
        void electionWonReadsTopicsAndGroupsAndArmsKeepAlive() {
            d.boot();
            List<CoordinatorEffect> effects = d.win(EPOCH);
            assertTrue(effects.contains(new Read(new ZkRead.Topics())), effects.toString());
            assertTrue(effects.contains(new Read(new ZkRead.Groups())), effects.toString());
            assertEquals(d.now + d.config.keepAliveIntervalMs(), d.deadline(new CoordinatorTimer.KeepAlive()));
            assertEquals(Coordinator.Role.LOADING, d.coordinator.role());
            assertEquals(EPOCH, d.coordinator.epoch());
        }

        @Test
        void keepAliveTimerIssuesACheapReadAndRearms() {
            d.activate(EPOCH);
            List<CoordinatorEffect> effects = d.fire(new CoordinatorTimer.KeepAlive());
            assertTrue(effects.contains(new CoordinatorEffect.KeepAlive()), effects.toString());
            assertEquals(d.now + d.config.keepAliveIntervalMs(), d.deadline(new CoordinatorTimer.KeepAlive()));
        }

        @Test
        void registrationBeforeTheInitialReadsAreAnsweredWaitsForThemInsteadOfBeingRefused() {
            d.boot();
            d.win(EPOCH);
            List<CoordinatorEffect> effects = d.register(1, G, "a", "t");
            assertTrue(d.responses(1).isEmpty(), "no answer while loading: " + d.responses(1));
            assertTrue(only(effects, Write.class).isEmpty());
            assertTrue(d.coordinator.group(G).isEmpty());

            d.loadEmpty(); // loaded: the parked registration is handled as if it arrived now (in the lease wait)
            assertEquals(1, d.writes.size(), "its registration is written once loaded");
            d.answerWrites();
            assertEquals(ErrorCode.NONE, d.lastResponse(1, RegisterResponse.class).errorCode());
            assertEquals(Coordinator.Role.LEASE_WAIT, d.coordinator.role());
        }

        @Test
        void aRegistrationParkedWhileLoadingIsForgottenWithItsConnection() {
            d.boot();
            d.win(EPOCH);
            d.register(1, G, "a", "t");
            d.register(2, G, "b", "t");
            d.feed(new CoordinatorEvent.ConnectionClosed(1));
            d.loadEmpty();
            d.answerWrites();
            assertTrue(d.responses(1).isEmpty(), d.responses(1).toString());
            assertEquals(ErrorCode.NONE, d.lastResponse(2, RegisterResponse.class).errorCode());
            assertEquals(List.of("b"), List.copyOf(d.view(G).members()));
        }

        @Test
        void aRegistrationParkedWhileLoadingIsRefusedWhenTheLoadingEndsInAReset() {
            d.boot();
            d.win(EPOCH);
            d.register(1, G, "a", "t");
            d.feed(new CoordinatorEvent.ZkExpired());
            assertEquals(ErrorCode.NOT_COORDINATOR, d.lastResponse(1, RegisterResponse.class).errorCode());
            assertEquals(Coordinator.Role.FOLLOWER, d.coordinator.role());
        }

        @Test
        void aRegistrationThatHasSeenANewerEpochIsNotParkedButRefusedAtOnce() {
            d.boot();
            d.win(EPOCH);
            RegisterRequest r = d.registerRequest(G, "a", "t");
            d.request(1, new RegisterRequest(r.groupId(), r.consumerId(), r.subscription(), r.autoCommit(),
                    r.autoOffsetReset(), r.pingIntervalMs(), r.maxPingRetries(), EPOCH + 1));
            // We may already be deposed: no reason to hold it.
            assertEquals(ErrorCode.COORDINATOR_NOT_READY, d.lastResponse(1, RegisterResponse.class).errorCode());
        }

        @Test
        void nonCoordinatorAnswersRegisterWithNotCoordinator() {
            d.boot();
            List<CoordinatorEffect> effects = d.register(1, G, "a", "t");
            assertEquals(ErrorCode.NOT_COORDINATOR, d.lastResponse(1, RegisterResponse.class).errorCode());
            assertTrue(only(effects, Write.class).isEmpty());
        }

        @Test
        void consultAnswersOurIdAndEpochWhenCoordinator() {
            d.boot();
            d.feed(new CoordinatorEvent.LeaderObserved(3, EPOCH - 1));
            d.win(EPOCH);
            d.consult(1);
            ConsultResponse r = d.lastResponse(1, ConsultResponse.class);
            assertEquals(ErrorCode.NONE, r.errorCode());
            assertEquals(CoordinatorDriver.BROKER_ID, r.coordinatorId());
            assertEquals(EPOCH, r.coordinatorEpoch());
        }

        @Test
        void consultAnswersTheObservedLeaderWhenNotCoordinator() {
            d.boot();
            d.consult(1);
            assertEquals(ConsultResponse.NONE, d.lastResponse(1, ConsultResponse.class).coordinatorId());
            d.feed(new CoordinatorEvent.LeaderObserved(3, 9));
            d.consult(1);
            ConsultResponse r = d.lastResponse(1, ConsultResponse.class);
            assertEquals(3, r.coordinatorId());
            assertEquals(9, r.coordinatorEpoch());
        }
    }

    /** D4/D9: a new epoch hands nothing out while the previous epoch's consumers may still fetch. */
    @Nested
    class PostElectionLeaseWait {
        long wonAt;

        /** Generation 3 with a and b recorded by the previous epoch; a has committed offset 40 on partition 0. */
        GroupSnapshot recorded() {
            return GroupSnapshot.of(3, "range", Map.of("a", registration("t"), "b", registration("t")),
                    Map.of(tp(0), stream("a"), tp(1), stream("b")), Map.of(tp(0), 40L));
        }

        void winAndLoad(boolean previousHandedOver) {
            d.boot();
            wonAt = d.now;
            if (previousHandedOver) {
                d.winAfterHandover(EPOCH);
            } else {
                d.win(EPOCH);
            }
            d.advance(10);
            d.load(Map.of(G, recorded()));
            assertEquals(Coordinator.Role.LEASE_WAIT, d.coordinator.role());
        }

        void reRegister(long conn, String consumer) {
            d.advance(100);
            d.register(conn, G, consumer, "t");
            d.answerWrites();
            assertEquals(ErrorCode.NONE, d.lastResponse(conn, RegisterResponse.class).errorCode());
        }

        @Test
        void noStartBeforeThePreviousEpochsLeasesAreSurelyOver() {
            winAndLoad(false);
            long surelyOver = d.config.leaseSurelyOverMs(wonAt, LEASE_MS);
            assertEquals(surelyOver, d.deadline(new LeaseWaitOver()));
            reRegister(1, "a");

            d.advanceTo(surelyOver - 1);
            d.synced();
            assertTrue(d.sent(1, StopRequest.class).isEmpty());
            assertTrue(d.sent(1, StartRequest.class).isEmpty());

            d.fire(new LeaseWaitOver());
            d.settle();
            List<Long> starts = d.sentTimes(1, StartRequest.class);
            assertFalse(starts.isEmpty());
            assertTrue(starts.stream().allMatch(t -> t >= surelyOver), starts + " vs " + surelyOver);
            // b did not return: a takes both, with the committed offset where there is one.
            StartRequest start = d.sent(1, StartRequest.class).get(0);
            assertEquals(new StartRequest(EPOCH, 4, List.of(new PartitionAssignment("t", "1-0", 40, 0),
                    new PartitionAssignment("t", "1-1", Coordinator.OFFSET_NONE, 0))), start);
        }

        @Test
        void reRegistrationsDuringTheWaitAreBatchedIntoOneRunAtItsEnd() {
            winAndLoad(false);
            reRegister(1, "a");
            reRegister(2, "b");
            assertTrue(d.sent(1).isEmpty());
            assertTrue(d.sent(2).isEmpty());
            assertEquals(TriggerState.QUEUED, d.view(G).trigger());

            List<CoordinatorEffect> effects = d.fire(new LeaseWaitOver());
            List<SendRequest> stops = only(effects, SendRequest.class);
            assertEquals(2, stops.size(), effects.toString());
            assertTrue(stops.stream().allMatch(s -> s.request().equals(new StopRequest(EPOCH, 3))));
            d.settle();

            assertEquals(1, d.sent(1, StopRequest.class).size());
            assertEquals(1, d.sent(2, StartRequest.class).size());
            GroupView v = d.view(G);
            assertTrue(v.stable(), v.toString());
            assertEquals(4, v.generation(), "one run");
        }

        @Test
        void aRecordedRegistrationWithABadRegexIsSkippedAndNothingElseIsDisturbed() {
            d.boot();
            d.win(EPOCH);
            Registration bad = new Registration(new shepherd.protocol.WildcardSubscription(
                    shepherd.protocol.WildcardKind.WHITELIST, "logs([", 1), true, shepherd.protocol.OffsetReset.SMALLEST,
                    100, (short) 2);
            GroupSnapshot withGarbage = GroupSnapshot.of(3, "range", Map.of("a", registration("t"), "x", bad),
                    Map.of(tp(0), stream("a")), Map.of());
            List<CoordinatorEffect> effects = d.load(Map.of(G, withGarbage));
            assertTrue(only(effects, Notice.class).stream().anyMatch(n -> n.message().contains("'x'")
                    && n.message().contains("logs([")), effects.toString());
            assertEquals(Coordinator.Role.LEASE_WAIT, d.coordinator.role());
            assertEquals(Set.of("a"), d.view(G).members());
        }

        @Test
        void recordedMembersThatDidNotReturnAreRemoved() {
            winAndLoad(false);
            reRegister(1, "a");
            List<CoordinatorEffect> effects = d.fire(new LeaseWaitOver());
            assertTrue(only(effects, Notice.class).stream().anyMatch(n -> n.message().contains("'b'")), effects.toString());
            assertTrue(hasOp(only(effects, Write.class), new ZkOp.DeleteRegistration(G, "b")), effects.toString());
            assertEquals(Set.of("a"), d.view(G).members());
            d.settle();
            assertEquals(Map.of(tp(0), stream("a"), tp(1), stream("a")), d.view(G).owners());
        }

        @Test
        void cleanHandoverOfThePreviousEpochMakesTheWaitShort() {
            winAndLoad(true);
            long deadline = d.deadline(new LeaseWaitOver());
            assertEquals(d.now + d.config.handoverGraceMs(), deadline);
            assertTrue(deadline < d.config.leaseSurelyOverMs(wonAt, LEASE_MS));
        }

        @Test
        void afterACleanHandoverTheGraceEndsOnceEveryRecordedMemberIsBack() {
            // DESIGN §9: a graceful handover should leave every group stable within 200 ms, not after the grace.
            winAndLoad(true);
            reRegister(1, "a");
            assertEquals(Coordinator.Role.LEASE_WAIT, d.coordinator.role(), "b has not returned yet");
            reRegister(2, "b");
            assertEquals(Coordinator.Role.ACTIVE, d.coordinator.role());
            long backAt = d.now;
            d.settle();
            GroupView v = d.view(G);
            assertTrue(v.stable(), v.toString());
            assertTrue(d.sentTimes(1, StartRequest.class).stream().allMatch(t -> t < backAt + d.config.handoverGraceMs()));
        }

        @Test
        void withoutTheLeaseWaitTheRecordedMembersAreNotWaitedFor() {
            // Negative control (D4): the wait ends as soon as the reads are answered.
            d = new CoordinatorDriver(Set.of(Defect.NO_LEASE_WAIT));
            winAndLoad(false);
            assertEquals(d.now, d.deadline(new LeaseWaitOver()));
        }
    }

    /** Seed rebalance steps 4–5 for one member: every step waits for the durable or acknowledged one before it. */
    @Nested
    class Join {
        @BeforeEach
        void active() {
            d.activate(EPOCH);
        }

        @Test
        void registrationIsAnsweredOnlyAfterItsWriteCommits() {
            List<CoordinatorEffect> effects = d.register(1, G, "a", "t");
            assertTrue(only(effects, Respond.class).isEmpty(), effects.toString());
            Write w = d.onlyWrite();
            assertEquals(EPOCH, w.epoch());
            assertTrue(w.fenced());
            assertEquals(List.of(new ZkOp.PutGroup(G, 0, "range"), new ZkOp.PutRegistration(G, "a", registration("t"))),
                    w.ops());

            effects = d.answerWrites();
            assertEquals(new RegisterResponse(ErrorCode.NONE, EPOCH, "a"), d.lastResponse(1, RegisterResponse.class));
            assertTrue(effects.contains(new SetTimer(new PingDue(G, "a"), d.now + CoordinatorDriver.PING_INTERVAL_MS)));
        }

        @Test
        void repeatedRegistrationIsNotAnsweredBeforeTheFirstWriteCommits() {
            // The "same Register again" shortcut of Membership.register must wait for the first one's write: the
            // member is confirmed before the write that records it has committed. Answering at once goes wrong so:
            //   1. a registers on connection 1 → Write [PutGroup, PutRegistration] in flight, no answer yet;
            //   2. a resends the same Register on connection 1 (its request timed out) → RegisterResponse NONE;
            //   3. the write is then refused (or fenced): a is told it is registered though nothing is recorded,
            //      so the next coordinator will not know it.
            d.register(1, G, "a", "t");
            long write = d.onlyWrite().writeId();
            List<CoordinatorEffect> effects = d.register(1, G, "a", "t");
            assertTrue(only(effects, Respond.class).isEmpty(), "answered before write " + write + " committed: " + effects);
            d.answerWrites();
            assertEquals(ErrorCode.NONE, d.lastResponse(1, RegisterResponse.class).errorCode());
        }

        @Test
        void joinStopsGenerationZeroThenWritesOwnersThenStartsGenerationOne() {
            d.register(1, G, "a", "t");
            d.answerWrites();
            assertEquals(new StopRequest(EPOCH, 0), d.pending(1, StopRequest.class).request());
            assertTrue(d.writes.isEmpty(), "no owners before the Stop is acknowledged");

            d.ackStop(1);
            Write w = d.onlyWrite();
            assertTrue(w.fenced());
            assertEquals(EPOCH, w.epoch());
            assertEquals(List.of(new ZkOp.PutGroup(G, 1, "range"), new ZkOp.PutOwner(G, tp(0), stream("a"), 1),
                    new ZkOp.PutOwner(G, tp(1), stream("a"), 1)), w.ops());
            assertTrue(d.sent(1, StartRequest.class).isEmpty(), "no Start before the owners commit");

            d.answerWrites();
            assertEquals(new StartRequest(EPOCH, 1, List.of(
                    new PartitionAssignment("t", "1-0", Coordinator.OFFSET_NONE, 0),
                    new PartitionAssignment("t", "1-1", Coordinator.OFFSET_NONE, 0))),
                    d.pending(1, StartRequest.class).request());
            assertFalse(d.view(G).stable());

            d.ackStart(1);
            GroupView v = d.view(G);
            assertTrue(v.stable(), v.toString());
            assertEquals(1, v.generation());
            assertEquals(Map.of("a", 1), v.started());
            assertEquals(Map.of(tp(0), stream("a"), tp(1), stream("a")), v.owners());
        }

        @Test
        void theOwnersWriteCarriesOnlyTheOwnersThatChange() {
            d.join(1, G, "a", "t");
            d.register(2, G, "b", "t");
            d.answerWrites();
            d.ackStop(1);
            d.ackStop(2);
            // Range over a, b: t/1-0 stays with a, t/1-1 moves to b; only the moved node is written.
            assertEquals(List.of(new ZkOp.PutGroup(G, 2, "range"), new ZkOp.PutOwner(G, tp(1), stream("b"), 2)),
                    d.onlyWrite().ops());
            d.settle();
            assertEquals(Map.of(tp(0), stream("a"), tp(1), stream("b")), d.view(G).owners());
            assertEquals(List.of(new PartitionAssignment("t", "1-0", Coordinator.OFFSET_NONE, 0)),
                    d.sent(1, StartRequest.class).get(1).assigned());
        }

        @Test
        void startCarriesTheCommittedOffsetElseOffsetNone() {
            d.join(1, G, "a", "t");
            d.request(1, new OffsetCommitRequest(G, "a", EPOCH, 1, List.of(offset(0, 17))));
            d.answerWrites();
            d.register(2, G, "b", "t");
            d.settle();
            assertEquals(List.of(new PartitionAssignment("t", "1-0", 17, 0)),
                    d.sent(1, StartRequest.class).get(1).assigned());
            assertEquals(List.of(new PartitionAssignment("t", "1-1", Coordinator.OFFSET_NONE, 0)),
                    d.sent(2, StartRequest.class).get(0).assigned());
        }
    }

    /** D11: a bad registration is answered with the reason and disturbs nothing. */
    @Nested
    class RegistrationValidation {
        @BeforeEach
        void active() {
            d.activate(EPOCH);
            d.join(1, G, "a", "t");
        }

        RegisterRequest request(String consumer, Subscription s, int pingIntervalMs, int highestEpochSeen) {
            return new RegisterRequest(G, consumer, s, true, OffsetReset.SMALLEST, pingIntervalMs,
                    CoordinatorDriver.MAX_PING_RETRIES, highestEpochSeen);
        }

        void assertRejected(RegisterRequest r, ErrorCode code, String reason) {
            SortedMap<String, GroupView> before = d.coordinator.groups();
            List<CoordinatorEffect> effects = d.request(9, r);
            assertEquals(new RegisterResponse(code, EPOCH, r.consumerId()), single(only(effects, Respond.class)).response());
            assertTrue(only(effects, Notice.class).stream().anyMatch(n -> n.message().contains(reason)), effects.toString());
            assertTrue(only(effects, Write.class).isEmpty());
            assertTrue(only(effects, SendRequest.class).isEmpty());
            assertTrue(d.writes.isEmpty());
            assertEquals(before, d.coordinator.groups());
        }

        @Test
        void invalidWildcardRegexIsRejectedWithTheReason() {
            assertRejected(request("x", new WildcardSubscription(WildcardKind.WHITELIST, "t[", 1), 1_000, -1),
                    ErrorCode.INVALID_REGISTRATION, "not a valid regular expression");
        }

        @Test
        void emptyConsumerIdIsRejected() {
            assertRejected(request("", CoordinatorDriver.subscription("t"), 1_000, -1), ErrorCode.INVALID_REGISTRATION,
                    "consumer_id is empty");
        }

        @Test
        void zeroStreamsAreRejected() {
            assertRejected(request("x", new StaticSubscription(List.of(new TopicStreams("t", 0))), 1_000, -1),
                    ErrorCode.INVALID_REGISTRATION, "streams 0");
        }

        @Test
        void pingIntervalOutOfRangeIsRejected() {
            assertRejected(request("x", CoordinatorDriver.subscription("t"), 5, -1), ErrorCode.INVALID_REGISTRATION,
                    "ping_interval_ms 5");
        }

        @Test
        void consumerThatSawANewerEpochIsToldNotCoordinator() {
            assertRejected(request("x", CoordinatorDriver.subscription("t"), 1_000, EPOCH + 1),
                    ErrorCode.NOT_COORDINATOR, "epoch " + (EPOCH + 1));
        }
    }

    /** BarrierSound: Start(g+1) only after every Stop(g) is acknowledged or the silent member's lease is over. */
    @Nested
    class StopBarrier {
        /** a and b stable in generation 2; c registers and a run stops generation 2. */
        @BeforeEach
        void runInFlight() {
            twoStableMembers();
            d.register(3, G, "c", "t");
            d.answerWrites();
            for (long conn = 1; conn <= 3; conn++) {
                assertEquals(new StopRequest(EPOCH, 2), d.pending(conn, StopRequest.class).request());
            }
        }

        int starts() {
            return d.all(SendRequest.class).stream().filter(s -> s.request() instanceof StartRequest)
                    .mapToInt(s -> 1).sum();
        }

        @Test
        void startIsNeverSentBeforeEveryParticipantAcknowledgedStop() {
            int startsBefore = starts();
            d.ackStop(1);
            d.ackStop(3);
            assertTrue(d.writes.isEmpty());
            assertEquals(startsBefore, starts());

            d.fire(new Barrier(G)); // b missed one round: asked again
            assertEquals(2, stopsOfGeneration2(2));
            assertTrue(d.writes.isEmpty());
            assertEquals(startsBefore, starts());

            d.ackStop(2);
            assertTrue(hasOp(List.copyOf(d.writes.values()), new ZkOp.PutGroup(G, 3, "range")));
            d.answerWrites();
            assertEquals(startsBefore + 3, starts());
        }

        @Test
        void memberMissingStopRoundsIsRemovedAndItsPartitionsMoveOnlyAfterItsLeaseRanOut() {
            d.ackStop(1);
            d.ackStop(3);
            d.fire(new Barrier(G));
            d.fire(new Barrier(G));
            // b still answers pings (a grant that renews its lease) but never Stop.
            d.fire(new PingDue(G, "b"));
            long lastGrant = d.now;
            d.answer(2, PingRequest.class, new PingResponse(ErrorCode.NONE, 2, null));

            List<CoordinatorEffect> effects = d.fire(new Barrier(G));
            assertTrue(only(effects, Notice.class).stream().anyMatch(n -> n.message().contains("missed 3 Stop rounds")),
                    effects.toString());
            assertTrue(effects.contains(new CloseConnection(2)));
            assertTrue(hasOp(only(effects, Write.class), new ZkOp.DeleteRegistration(G, "b")));
            assertEquals(Set.of("a", "c"), d.view(G).members());

            long surelyOver = d.config.leaseSurelyOverMs(lastGrant, LEASE_MS);
            assertTrue(surelyOver > d.now, "the test must leave a lease to wait out");
            assertEquals(surelyOver, d.deadline(new Barrier(G)));
            d.answerWrites();
            assertTrue(d.writes.isEmpty(), "no owners written while b may still fetch");

            d.fire(new Barrier(G));
            d.settle();
            for (long conn : new long[] {1, 3}) {
                List<Long> times = d.sentTimes(conn, StartRequest.class);
                assertTrue(times.get(times.size() - 1) >= surelyOver, times + " vs " + surelyOver);
            }
            GroupView v = d.view(G);
            assertTrue(v.stable(), v.toString());
            assertEquals(Map.of(tp(0), stream("a"), tp(1), stream("c")), v.owners());
        }

        @Test
        void reRegistrationOfTheLastUnstartedParticipantEndsTheStartRoundAtOnce() {
            // Liveness: forgetting an incarnation drops the member from the run and must advance the run, as a
            // closed connection does; otherwise:
            //   1. a, b and c have acknowledged Stop(2); owners of generation 3 committed; Start(3) sent to all;
            //   2. a and b acknowledge Start(3); c re-registers on a new connection before acknowledging;
            //   3. the run waits for nobody, yet stays in STARTING until the Start timeout fires, then ends as
            //      failed (backoff, failedRuns + 1) before c is started by a retry.
            d.ackStop(1);
            d.ackStop(2);
            d.ackStop(3);
            d.answerWrites();
            d.ackStart(1);
            d.ackStart(2);
            d.register(4, G, "c", "t");
            d.answerWrites();
            assertFalse(d.sent(4, StopRequest.class).isEmpty(), "the run should end and a new one stop c: " + d.view(G));
        }
    }

    /** D1 / NoLostTrigger: a change during a run is seen by a later run. */
    @Nested
    class TriggerDirtyFlag {
        void registerDuringARun() {
            d.activate(EPOCH);
            d.join(1, G, "a", "t");
            d.register(2, G, "b", "t");
            d.answerWrites();
            assertTrue(d.view(G).running());
            d.register(3, G, "c", "t");
            d.answerWrites();
            assertEquals(ErrorCode.NONE, d.lastResponse(3, RegisterResponse.class).errorCode());
        }

        @Test
        void registrationDuringARunMakesItDirtyAndASecondRunFollows() {
            registerDuringARun();
            assertEquals(TriggerState.RUNNING_DIRTY, d.view(G).trigger());
            d.settle();
            assertEquals(List.of(new StopRequest(EPOCH, 2)), d.sent(3, StopRequest.class));
            GroupView v = d.view(G);
            assertTrue(v.stable(), v.toString());
            assertEquals(3, v.generation());
            assertEquals(3, v.started().get("c"));
        }

        @Test
        void droppingTriggersLeavesTheLateMemberUnstarted() {
            // Negative control (D1): the seed's compareAndSet loses the trigger, and nothing ever starts c.
            d = new CoordinatorDriver(Set.of(Defect.DROP_TRIGGERS));
            registerDuringARun();
            assertEquals(TriggerState.RUNNING, d.view(G).trigger());
            d.settle();
            assertTrue(d.sent(3).isEmpty(), d.sent(3).toString());
            GroupView v = d.view(G);
            assertEquals(TriggerState.IDLE, v.trigger());
            assertEquals(-1, v.started().get("c"));
            assertFalse(v.stable());
        }
    }

    /** DESIGN §5 failure of a member, and D10 for offsets reported in pings. */
    @Nested
    class PingsAndFailure {
        @BeforeEach
        void stable() {
            twoStableMembers();
        }

        @Test
        void pingDueSendsPingWithEpochGenerationAndRetries() {
            d.fire(new PingDue(G, "a"));
            d.fire(new PingDue(G, "a"));
            assertEquals(List.of(new PingRequest(EPOCH, 2, (short) 0), new PingRequest(EPOCH, 2, (short) 1)),
                    d.sent(1, PingRequest.class));
            d.answer(1, PingRequest.class, new PingResponse(ErrorCode.NONE, 2, null));
            d.fire(new PingDue(G, "a"));
            assertEquals(new PingRequest(EPOCH, 2, (short) 0), d.pending(1, PingRequest.class).request());
        }

        @Test
        void maxPingRetriesPlusOneUnansweredPingsRemoveTheMemberAndRebalance() {
            for (int i = 0; i <= CoordinatorDriver.MAX_PING_RETRIES; i++) {
                d.fire(new PingDue(G, "a"));
            }
            long lastPing = d.now;
            assertEquals(3, d.sent(1, PingRequest.class).size());
            List<CoordinatorEffect> effects = d.fire(new PingDue(G, "a"));
            assertTrue(only(effects, Notice.class).stream().anyMatch(n -> n.message().contains("missed 3 pings")),
                    effects.toString());
            assertTrue(effects.contains(new CloseConnection(1)));
            assertTrue(hasOp(only(effects, Write.class), new ZkOp.DeleteRegistration(G, "a")));
            assertEquals(new StopRequest(EPOCH, 2), d.pending(2, StopRequest.class).request());

            d.ackStop(2);
            d.answerWrites();
            long surelyOver = d.config.leaseSurelyOverMs(lastPing, LEASE_MS);
            assertEquals(surelyOver, d.deadline(new Barrier(G)));
            d.fire(new Barrier(G));
            d.settle();
            List<Long> times = d.sentTimes(2, StartRequest.class);
            assertTrue(times.get(times.size() - 1) >= surelyOver);
            assertEquals(Map.of(tp(0), stream("b"), tp(1), stream("b")), d.view(G).owners());
        }

        @Test
        void pingOffsetsFromTheOwnerInTheCurrentGenerationAreWritten() {
            d.fire(new PingDue(G, "a"));
            List<CoordinatorEffect> effects = d.answer(1, PingRequest.class,
                    new PingResponse(ErrorCode.NONE, 2, List.of(offset(0, 10))));
            assertEquals(List.of(new ZkOp.PutOffset(G, tp(0), 10, "a")), single(only(effects, Write.class)).ops());
            d.answerWrites();
            assertEquals(Map.of(tp(0), 10L), d.view(G).offsets());
        }

        @Test
        void offsetNotBeyondTheCommittedOneIsNotWritten() {
            pingOffsetsFromTheOwnerInTheCurrentGenerationAreWritten();
            for (long stale : new long[] {10, 9}) {
                d.fire(new PingDue(G, "a"));
                List<CoordinatorEffect> effects = d.answer(1, PingRequest.class,
                        new PingResponse(ErrorCode.NONE, 2, List.of(offset(0, stale))));
                assertTrue(only(effects, Write.class).isEmpty(), effects.toString());
            }
            assertEquals(Map.of(tp(0), 10L), d.view(G).offsets());
        }

        @Test
        void pingOffsetsFromANonOwnerAreNotWritten() {
            d.fire(new PingDue(G, "b"));
            List<CoordinatorEffect> effects = d.answer(2, PingRequest.class,
                    new PingResponse(ErrorCode.NONE, 2, List.of(offset(0, 10))));
            assertTrue(only(effects, Write.class).isEmpty(), effects.toString());
            assertTrue(d.writes.isEmpty());
            assertEquals(Map.of(), d.view(G).offsets());
        }
    }

    /** D10: offsets only from the owner in the current generation, forwards only, answered once durable. */
    @Nested
    class OffsetCommit {
        @BeforeEach
        void stable() {
            twoStableMembers();
        }

        ErrorCode commit(long conn, String consumer, int epoch, int generation) {
            List<CoordinatorEffect> effects = d.request(conn,
                    new OffsetCommitRequest(G, consumer, epoch, generation, List.of(offset(0, 5))));
            assertTrue(only(effects, Write.class).isEmpty());
            return ((OffsetCommitResponse) single(only(effects, Respond.class)).response()).errorCode();
        }

        @Test
        void lowerEpochIsStale() {
            assertEquals(ErrorCode.STALE_COORDINATOR_EPOCH, commit(1, "a", EPOCH - 1, 2));
        }

        @Test
        void higherEpochMeansWeAreNotCoordinator() {
            assertEquals(ErrorCode.NOT_COORDINATOR, commit(1, "a", EPOCH + 1, 2));
        }

        @Test
        void unknownMemberOrForeignConnectionIsUnknownConsumer() {
            assertEquals(ErrorCode.UNKNOWN_CONSUMER, commit(1, "zz", EPOCH, 2));
            assertEquals(ErrorCode.UNKNOWN_CONSUMER, commit(7, "a", EPOCH, 2));
        }

        @Test
        void wrongGenerationIsIllegal() {
            assertEquals(ErrorCode.ILLEGAL_GENERATION, commit(1, "a", EPOCH, 1));
        }

        @Test
        void eachPartitionNotOwnedIsNotOwnerAndTheAnswerWaitsForTheWrite() {
            List<CoordinatorEffect> effects = d.request(1,
                    new OffsetCommitRequest(G, "a", EPOCH, 2, List.of(offset(0, 5), offset(1, 6))));
            assertTrue(only(effects, Respond.class).isEmpty(), effects.toString());
            assertEquals(List.of(new ZkOp.PutOffset(G, tp(0), 5, "a")), d.onlyWrite().ops());

            effects = d.answerWrites();
            OffsetCommitResponse r = (OffsetCommitResponse) single(only(effects, Respond.class)).response();
            assertEquals(new OffsetCommitResponse(ErrorCode.NONE, List.of(
                    new PartitionResult("t", "1-0", ErrorCode.NONE), new PartitionResult("t", "1-1", ErrorCode.NOT_OWNER))), r);
            assertEquals(Map.of(tp(0), 5L), d.view(G).offsets());
        }
        @Test
        void anOlderReportArrivingWhileANewerOffsetIsInFlightNeverMovesTheOffsetBackwards() {
            // A report must exceed the PutOffset in flight too, not only the mirror (GroupState.offsetFloor): the
            // queue compacts only within a batch. Compared with the mirror alone:
            //   1. a (owner of t/1-0, generation 2) commits offset 16 → Write w1 [PutOffset 16] in flight;
            //   2. a retried or reordered report of 10 arrives (OffsetCommit or a Ping answer) → the mirror still
            //      has no offset, 10 is "beyond" it → PutOffset 10 is queued behind w1;
            //   3. w1 commits (ZooKeeper 16, mirror 16) → the queue flushes as w2 [PutOffset 10];
            //   4. w2 commits: ZooKeeper holds 10 while the mirror keeps 16 (FencedWrites: a committed offset
            //      never decreases).
            d.request(1, new OffsetCommitRequest(G, "a", EPOCH, 2, List.of(offset(0, 16))));
            long first = d.onlyWrite().writeId();
            d.request(1, new OffsetCommitRequest(G, "a", EPOCH, 2, List.of(offset(0, 10))));
            d.commit(first);
            d.settle();
            List<Long> written = d.all(Write.class).stream().flatMap(w -> w.ops().stream())
                    .filter(op -> op instanceof ZkOp.PutOffset).map(op -> ((ZkOp.PutOffset) op).offset()).toList();
            assertEquals(List.of(16L), written, "offsets written for t/1-0, in order");
            assertEquals(Map.of(tp(0), 16L), d.view(G).offsets());
        }
    }

    /**
     * Leave: last offsets and the deregistration written with the owners multi of the run the Leave starts, answered
     * once durable; written at once when no run is about to write owners, or when the run stalls.
     */
    @Nested
    class Leave {
        @BeforeEach
        void stable() {
            twoStableMembers();
        }

        List<CoordinatorEffect> leave() {
            return d.request(1, new LeaveRequest(G, "a", List.of(offset(0, 12))));
        }

        @Test
        void leaveWritesOffsetsAndDeletesTheRegistrationWithTheOwnersAndAnswersAfterTheWrite() {
            int starts = d.sent(2, StartRequest.class).size();
            List<CoordinatorEffect> effects = leave();
            assertTrue(only(effects, Respond.class).isEmpty(), effects.toString());
            assertTrue(only(effects, Write.class).isEmpty(), "held for the owners multi: " + effects);
            assertEquals(Set.of("b"), d.view(G).members());

            d.ackStop(2);
            Write w = d.onlyWrite();
            assertTrue(w.ops().contains(new ZkOp.PutOffset(G, tp(0), 12, "a")), w.toString());
            assertTrue(w.ops().contains(new ZkOp.DeleteRegistration(G, "a")), w.toString());
            assertTrue(w.ops().stream().anyMatch(op -> op instanceof ZkOp.PutGroup p && p.generation() == 3),
                    w.toString());
            assertEquals(starts, d.sent(2, StartRequest.class).size(), "no Start before the owners are written");
            assertTrue(d.responses(1).stream().noneMatch(r -> r instanceof LeaveResponse), "answered once durable");

            d.commit(w.writeId());
            assertEquals(LeaveResponse.ok(), d.lastResponse(1, LeaveResponse.class));
            assertEquals(Map.of(tp(0), 12L), d.view(G).offsets());
            assertEquals(starts + 1, d.sent(2, StartRequest.class).size());
        }

        @Test
        void aStopRoundThatStallsSendsTheRemovalOnItsOwnAtItsTimeout() {
            leave();
            assertTrue(d.writes.isEmpty());
            List<CoordinatorEffect> effects = d.fire(new Barrier(G)); // b never answers its Stop
            Write w = single(only(effects, Write.class));
            assertEquals(Set.of(new ZkOp.PutOffset(G, tp(0), 12, "a"), new ZkOp.DeleteRegistration(G, "a")),
                    Set.copyOf(w.ops()));
            d.commit(w.writeId());
            assertEquals(LeaveResponse.ok(), d.lastResponse(1, LeaveResponse.class));
        }

        @Test
        void theLastMemberLeavingIsWrittenWithTheOwnersItsRunDeletes() {
            leave();
            d.ackStop(2);
            d.answerWrites();
            d.settle();
            List<CoordinatorEffect> effects = d.request(2, new LeaveRequest(G, "b", null));
            List<Write> writes = only(effects, Write.class);
            assertEquals(1, writes.size(), "no one to stop: the run writes at once, removal included: " + effects);
            assertTrue(writes.get(0).ops().contains(new ZkOp.DeleteRegistration(G, "b")), writes.toString());
            d.answerWrites();
            assertEquals(LeaveResponse.ok(), d.lastResponse(2, LeaveResponse.class));
            assertEquals(Set.of(), d.view(G).members());
            assertEquals(Map.of(), d.view(G).owners());
        }

        @Test
        void theRemainingMembersRebalance() {
            leave();
            d.answerWrites();
            assertEquals(new StopRequest(EPOCH, 2), d.pending(2, StopRequest.class).request());
            d.settle();
            GroupView v = d.view(G);
            assertTrue(v.stable(), v.toString());
            assertEquals(3, v.generation());
            assertEquals(Map.of(tp(0), stream("b"), tp(1), stream("b")), v.owners());
        }

        @Test
        void leavingConnectionIsNotClosedBeforeItsLeaveIsAnswered() {
            // A Leave's connection stays open for its answer, which comes only when the write commits. Removing
            // the member while it still holds its connection would emit CloseConnection(1) first; the runtime
            // executes effects in order, so the consumer would never learn whether its final offsets committed:
            //   1. a (connection 1) sends Leave with offsets → effects: [..., CloseConnection(1), ..., Write];
            //   2. the runtime closes connection 1;
            //   3. ZkWriteDone → Respond(1, LeaveResponse NONE), on a connection that no longer exists.
            leave();
            d.settle();
            List<CoordinatorEffect> onConn1 = d.history.stream().map(CoordinatorDriver.Timed::effect)
                    .filter(e -> e.equals(new CloseConnection(1))
                            || e instanceof Respond r && r.connectionId() == 1 && r.response() instanceof LeaveResponse)
                    .toList();
            assertTrue(onConn1.get(0) instanceof Respond, "the Leave must be answered before its connection closes: "
                    + onConn1);
        }
    }

    /** D2/D5: a deposed or possibly expired coordinator neither writes nor commands. */
    @Nested
    class FencingAndSessions {
        @Test
        void fencedWriteStandsDownAtOnce() {
            twoStableMembers();
            d.register(3, G, "c", "t");
            List<CoordinatorEffect> effects = d.fence(d.onlyWrite().writeId());
            assertTrue(only(effects, Notice.class).size() >= 1, effects.toString());
            assertEquals(List.of(new CloseConnection(1), new CloseConnection(2), new CloseConnection(3)),
                    only(effects, CloseConnection.class));
            assertTrue(effects.contains(new CancelAllTimers()));
            assertEquals(new Resign(true), effects.get(effects.size() - 1));
            assertTrue(only(effects, SendRequest.class).isEmpty());
            assertTrue(only(effects, Respond.class).isEmpty(), "c is not told it registered");
            assertEquals(Coordinator.Role.FOLLOWER, d.coordinator.role());
            assertTrue(d.coordinator.groups().isEmpty());
        }

        @Test
        void disconnectedCoordinatorSendsNoCommandUntilSyncConnected() {
            twoStableMembers();
            d.register(3, G, "c", "t");
            d.answerWrites();
            d.ackStop(1);
            d.ackStop(3);
            d.keepSessionFresh = false;
            int sentBefore = d.all(SendRequest.class).size();

            d.feed(new CoordinatorEvent.ZkDisconnected());
            d.fire(new Barrier(G));
            d.fire(new PingDue(G, "a"));
            assertEquals(sentBefore, d.all(SendRequest.class).size());
            assertFalse(d.coordinator.canCommandAt(d.now));

            assertEquals(1, stopsOfGeneration2(2), "no Stop while disconnected");
            d.feed(new CoordinatorEvent.ZkSyncConnected(d.now));
            d.fire(new Barrier(G));
            assertEquals(2, stopsOfGeneration2(2), "the Stop round resumes");
            d.fire(new PingDue(G, "a"));
            assertEquals(1, d.sent(1, PingRequest.class).size());
        }

        void pingWithAStaleSession() {
            d.activate(EPOCH);
            d.join(1, G, "a", "t");
            d.keepSessionFresh = false;
            long lastAck = d.now; // the last write's answer
            long until = d.config.commandableUntilMs(lastAck);
            assertTrue(d.coordinator.canCommandAt(until - 1));
            d.advanceTo(until);
            d.feed(new CoordinatorEvent.TimerFired(new PingDue(G, "a")));
        }

        @Test
        void coordinatorWhoseLastZooKeeperAnswerIsTooOldSendsNoCommand() {
            pingWithAStaleSession();
            assertFalse(d.coordinator.canCommandAt(d.now));
            assertTrue(d.sent(1, PingRequest.class).isEmpty());
        }

        @Test
        void aReadAnswerDoesNotProveTheSessionButAKeepAliveDoes() {
            d.activate(EPOCH);
            d.join(1, G, "a", "t");
            d.keepSessionFresh = false;
            long until = d.config.commandableUntilMs(d.now);
            d.advanceTo(until - 10);
            // A read sent now and answered: the member holding the connection may answer it on a session the
            // ensemble has ended, so the bound stays where the last write put it.
            d.feed(new CoordinatorEvent.GroupsRead(List.of(G), d.now));
            assertFalse(d.coordinator.canCommandAt(until));
            d.feed(new CoordinatorEvent.ZkSynced(d.now));
            assertTrue(d.coordinator.canCommandAt(until));
            assertEquals(d.config.commandableUntilMs(until - 10), latestCommandableMs(until - 10));
        }

        /** The first time from {@code fromMs} on at which the coordinator may no longer command. */
        private long latestCommandableMs(long fromMs) {
            long t = fromMs;
            while (d.coordinator.canCommandAt(t)) {
                t++;
            }
            return t;
        }

        @Test
        void withoutFencingAStaleCoordinatorStillCommandsAndWritesUnfenced() {
            // Negative control (D2/D5).
            d = new CoordinatorDriver(Set.of(Defect.NO_FENCING));
            pingWithAStaleSession();
            assertTrue(d.coordinator.canCommandAt(d.now));
            assertEquals(1, d.sent(1, PingRequest.class).size());
            assertFalse(d.all(Write.class).isEmpty());
            assertTrue(d.all(Write.class).stream().noneMatch(Write::fenced));
        }

        @Test
        void winningTheSameEpochAgainIsABrokenElection() {
            d.activate(EPOCH);
            d.feed(new CoordinatorEvent.ZkExpired());
            assertThrows(IllegalStateException.class, () -> d.win(EPOCH));
        }

        @Test
        void withoutFencingAReElectionMayKeepTheEpoch() {
            // The broker's negative control takes /consumers/epoch unbumped: re-winning it must not crash the core.
            d = new CoordinatorDriver(Set.of(Defect.NO_FENCING));
            d.activate(EPOCH);
            d.feed(new CoordinatorEvent.ZkExpired());
            d.win(EPOCH);
            assertEquals(Coordinator.Role.LOADING, d.coordinator.role());
            assertEquals(EPOCH, d.coordinator.epoch());
            assertThrows(IllegalStateException.class, () -> d.win(EPOCH - 1), "an epoch still never shrinks");
        }

        @Test
        void sessionExpiryResetsEverythingAndRunsForElectionAgain() {
            d.activate(EPOCH);
            d.join(1, G, "a", "t");
            List<CoordinatorEffect> effects = d.feed(new CoordinatorEvent.ZkExpired());
            assertTrue(effects.contains(new CloseConnection(1)));
            assertTrue(effects.contains(new CancelAllTimers()));
            assertEquals(new RunForElection(), effects.get(effects.size() - 1));
            assertEquals(Coordinator.Role.FOLLOWER, d.coordinator.role());
            assertTrue(d.coordinator.groups().isEmpty());
            assertTrue(d.timers.isEmpty());
        }
    }

    /** DESIGN §4: a write whose answer was lost is resolved by reading back, never re-sent blindly. */
    @Nested
    class UnknownWriteOutcome {
        long firstWrite;

        @BeforeEach
        void registrationWriteLost() {
            d.activate(EPOCH);
            d.register(1, G, "a", "t");
            firstWrite = d.onlyWrite().writeId();
            d.feed(new CoordinatorEvent.ZkDisconnected());
            List<CoordinatorEffect> effects = d.failWrite(firstWrite, true);
            assertTrue(only(effects, Respond.class).isEmpty());
            assertTrue(d.timers.containsKey(new CoordinatorTimer.ZkRetry()));
        }

        List<CoordinatorEffect> readBack(GroupSnapshot snapshot) {
            d.takeRead(new ZkRead.Group(G));
            return d.feed(new CoordinatorEvent.GroupRead(G, snapshot, d.now));
        }

        @Test
        void syncConnectedReadsTheGroupBack() {
            List<CoordinatorEffect> effects = d.feed(new CoordinatorEvent.ZkSyncConnected(d.now));
            assertTrue(effects.contains(new Read(new ZkRead.Group(G))), effects.toString());
            assertTrue(only(effects, Write.class).isEmpty(), "not re-sent blindly");
        }

        @Test
        void zkRetryWhileDisconnectedWaitsAndLaterWritesQueueBehindTheUnresolvedOne() {
            List<CoordinatorEffect> effects = d.fire(new CoordinatorTimer.ZkRetry());
            assertTrue(only(effects, Read.class).isEmpty(), effects.toString());
            assertTrue(d.timers.containsKey(new CoordinatorTimer.ZkRetry()));
            d.register(2, G, "b", "t");
            assertTrue(d.writes.isEmpty(), "b's write must not overtake the unresolved one");
        }

        @Test
        void zkRetryTimerReadsTheGroupBackWhenConnected() {
            d = new CoordinatorDriver();
            d.activate(EPOCH);
            d.register(1, G, "a", "t");
            d.failWrite(d.onlyWrite().writeId(), true);
            List<CoordinatorEffect> effects = d.fire(new CoordinatorTimer.ZkRetry());
            assertTrue(effects.contains(new Read(new ZkRead.Group(G))), effects.toString());
            assertTrue(only(effects, Write.class).isEmpty());
        }

        @Test
        void readBackThatReflectsTheWriteCompletesItWithoutASecondWrite() {
            d.feed(new CoordinatorEvent.ZkSyncConnected(d.now));
            GroupSnapshot applied = GroupSnapshot.of(0, "range", Map.of("a", registration("t")), Map.of(), Map.of());
            List<CoordinatorEffect> effects = readBack(applied);
            assertTrue(only(effects, Write.class).isEmpty(), effects.toString());
            assertEquals(new RegisterResponse(ErrorCode.NONE, EPOCH, "a"), d.lastResponse(1, RegisterResponse.class));
        }

        @Test
        void readBackThatDoesNotReflectTheWriteSendsTheSameOpsAgainUnderANewId() {
            Write lost = d.all(Write.class).get(0);
            d.feed(new CoordinatorEvent.ZkSyncConnected(d.now));
            List<CoordinatorEffect> effects = readBack(GroupSnapshot.empty("range"));
            Write again = single(only(effects, Write.class));
            assertNotEquals(firstWrite, again.writeId());
            assertEquals(lost.ops(), again.ops());
            assertTrue(only(effects, Respond.class).isEmpty());
            d.commit(again.writeId());
            assertEquals(ErrorCode.NONE, d.lastResponse(1, RegisterResponse.class).errorCode());
        }
    }

    /** Seed checks 3.1–3.5 plus 3.6, and D12: run only when something changed, and always then. */
    /** docs/assignors.md, "Choosing a group's assignor". */
    @Nested
    class ChoosingTheAssignor {
        void configure(GroupAssignors assignors) {
            d = new CoordinatorDriver(CoordinatorConfig.defaults(CoordinatorDriver.BROKER_ID,
                    CoordinatorDriver.SESSION_TIMEOUT_MS).withAssignors(assignors), Set.of());
        }

        @Test
        void aNewGroupGetsTheConfiguredDefaultAndANamedGroupItsOwn() {
            configure(new GroupAssignors("roundrobin", Map.of("special", "sticky")));
            d.activate(EPOCH);
            d.register(1, G, "a", "t");
            d.answerWrites();
            d.register(2, "special", "x", "t");
            d.answerWrites();
            assertTrue(hasOp(d.all(Write.class), new ZkOp.PutGroup(G, 0, "roundrobin")), d.all(Write.class).toString());
            assertTrue(hasOp(d.all(Write.class), new ZkOp.PutGroup("special", 0, "sticky")),
                    d.all(Write.class).toString());
        }

        /**
         * Wins, loads g as recorded with {@code range} in generation 3, with owners no assignor would choose (so it
         * surely moves to a new generation); a and b return and the group runs. The loading's effects.
         */
        List<CoordinatorEffect> loadARangeGroupAndRunIt() {
            d.boot();
            d.win(EPOCH);
            List<CoordinatorEffect> effects = d.load(Map.of(G, GroupSnapshot.of(3, "range",
                    Map.of("a", registration("t"), "b", registration("t")),
                    Map.of(tp(0), stream("b"), tp(1), stream("a")), Map.of())));
            d.advance(100);
            d.register(1, G, "a", "t");
            d.register(2, G, "b", "t");
            d.answerWrites();
            d.fire(new LeaseWaitOver());
            d.settle();
            assertEquals(4, d.view(G).generation());
            return effects;
        }

        @Test
        void aGroupNamedInTheConfigurationLeavesTheRecordedAssignorWithItsNextGeneration() {
            configure(new GroupAssignors("range", Map.of(G, "roundrobin")));
            List<CoordinatorEffect> effects = loadARangeGroupAndRunIt();
            assertTrue(only(effects, Notice.class).stream().anyMatch(n -> n.message().contains(
                    "group 'g': assignor 'roundrobin' configured, 'range' recorded")), effects.toString());
            assertTrue(hasOp(d.all(Write.class), new ZkOp.PutGroup(G, 4, "roundrobin")), d.all(Write.class).toString());
        }

        @Test
        void aGroupNotNamedKeepsItsRecordedAssignorWhateverTheDefault() {
            configure(new GroupAssignors("sticky", Map.of()));
            List<CoordinatorEffect> effects = loadARangeGroupAndRunIt();
            assertTrue(only(effects, Notice.class).isEmpty(), effects.toString());
            assertTrue(hasOp(d.all(Write.class), new ZkOp.PutGroup(G, 4, "range")), d.all(Write.class).toString());
        }

        @Test
        void anUnknownAssignorOrABadGroupIdIsRefusedWithTheOffendingValue() {
            UnknownAssignorException unknown = assertThrows(UnknownAssignorException.class,
                    () -> new GroupAssignors("Range", Map.of()));
            assertEquals("unknown assignor \"Range\"; known assignors: range, roundrobin, sticky", unknown.getMessage());
            assertThrows(UnknownAssignorException.class, () -> new GroupAssignors("range", Map.of(G, "stickyy")));
            IllegalArgumentException badId = assertThrows(IllegalArgumentException.class,
                    () -> new GroupAssignors("range", Map.of("a/b", "sticky")));
            assertTrue(badId.getMessage().contains("'a/b' has the character '/' at index 1"), badId.getMessage());
        }
    }

    @Nested
    class NecessityCheck {
        @BeforeEach
        void stable() {
            d.activate(EPOCH);
            d.join(1, G, "a", "t");
        }

        int stops() {
            return d.sent(1, StopRequest.class).size();
        }

        @Test
        void triggerWithNothingChangedSendsNoStop() {
            int before = stops();
            d.feed(new CoordinatorEvent.GroupMemberChange(G));
            d.takeRead(new ZkRead.Members(G));
            List<CoordinatorEffect> effects = d.feed(new CoordinatorEvent.MembersRead(G, List.of("a"), d.now));
            assertTrue(only(effects, SendRequest.class).isEmpty(), effects.toString());
            assertTrue(only(effects, Write.class).isEmpty(), effects.toString());
            assertEquals(before, stops());
            assertTrue(d.view(G).stable());
            assertEquals(1, d.view(G).generation());
        }

        @Test
        void vanishedTopicDropsItsOwners() {
            d.feed(new CoordinatorEvent.TopicPartitionChange("t"));
            d.takeRead(new ZkRead.Topic("t"));
            d.feed(new CoordinatorEvent.TopicRead("t", List.of(), d.now));
            assertEquals(new StopRequest(EPOCH, 1), d.pending(1, StopRequest.class).request());
            d.ackStop(1);
            Write w = d.onlyWrite();
            assertTrue(w.ops().contains(new ZkOp.DeleteOwner(G, tp(0))), w.toString());
            assertTrue(w.ops().contains(new ZkOp.DeleteOwner(G, tp(1))), w.toString());
            assertTrue(w.ops().stream().noneMatch(op -> op instanceof ZkOp.PutOwner), w.toString());
            d.settle();
            assertEquals(Map.of(), d.view(G).owners());
            assertEquals(List.of(), d.sent(1, StartRequest.class).get(1).assigned());
        }

        @Test
        void aTopicReadInAnyOrderRunsOnceAndThenNotAgain() {
            // Two brokers' partitions, in neither numeric nor text order: "1-9" < "1-10" < "2-0" numerically.
            List<PartitionId> listed = List.of(new PartitionId(2, 0), new PartitionId(1, 10), new PartitionId(1, 2),
                    new PartitionId(1, 9), new PartitionId(2, 11), new PartitionId(1, 0), new PartitionId(2, 3));
            d.feed(new CoordinatorEvent.TopicPartitionChange("t"));
            d.takeRead(new ZkRead.Topic("t"));
            d.feed(new CoordinatorEvent.TopicRead("t", listed, d.now));
            d.settle();
            Set<TopicPartition> all = new HashSet<>();
            listed.forEach(p -> all.add(new TopicPartition("t", p)));
            assertEquals(all, d.view(G).owners().keySet());
            assertEquals(2, d.view(G).generation());
            int before = stops();
            // Check 3.3 finds every owned partition in the topic as read: nothing changed, so nothing runs.
            d.feed(new CoordinatorEvent.GroupMemberChange(G));
            d.takeRead(new ZkRead.Members(G));
            List<CoordinatorEffect> effects = d.feed(new CoordinatorEvent.MembersRead(G, List.of("a"), d.now));
            assertTrue(only(effects, SendRequest.class).isEmpty(), effects.toString());
            assertEquals(before, stops());
            assertEquals(2, d.view(G).generation());
        }

        @Test
        void newPartitionTriggersARun() {
            d.feed(new CoordinatorEvent.TopicPartitionChange("t"));
            d.takeRead(new ZkRead.Topic("t"));
            d.feed(new CoordinatorEvent.TopicRead("t", CoordinatorDriver.partitions(3), d.now));
            assertEquals(new StopRequest(EPOCH, 1), d.pending(1, StopRequest.class).request());
            d.settle();
            assertEquals(stream("a"), d.view(G).owners().get(tp(2)));
            assertEquals(2, d.view(G).generation());
        }

        @Test
        void memberNotStartedInTheCurrentGenerationIsStoppedAndStarted() {
            // 3.6: same owners, but a re-registered on a new connection and fetches nothing there.
            List<CoordinatorEffect> effects = d.register(9, G, "a", "t");
            assertTrue(effects.contains(new CloseConnection(1)));
            assertTrue(only(effects, Write.class).isEmpty(), "same registration: nothing to write");
            assertEquals(ErrorCode.NONE, d.lastResponse(9, RegisterResponse.class).errorCode());
            assertEquals(new StopRequest(EPOCH, 1), d.pending(9, StopRequest.class).request());
            d.ackStop(9);
            d.fire(new Barrier(G)); // the old incarnation's lease
            d.settle();
            GroupView v = d.view(G);
            assertTrue(v.stable(), v.toString());
            assertEquals(Map.of("a", 2), v.started());
        }

        @Test
        void aRunThatMovesNoOwnerWritesTheGenerationAloneAndHoldsOffsetsBackMeanwhile() {
            d.join(2, G, "b", "t");
            d.register(9, G, "a", "t"); // 3.6: a re-registers; the owners stay as they are
            d.ackStop(9);
            d.ackStop(2);
            d.fire(new Barrier(G)); // the old incarnation's lease
            assertEquals(List.of(new ZkOp.PutGroup(G, 3, "range")), d.onlyWrite().ops());
            // While the next generation's write is out, a report of the old one is refused, as when owners move.
            d.request(2, new OffsetCommitRequest(G, "b", EPOCH, 2, List.of(offset(1, 5))));
            d.settle();
            assertEquals(List.of(new PartitionResult("t", "1-1", ErrorCode.REBALANCE_IN_PROGRESS)),
                    d.lastResponse(2, OffsetCommitResponse.class).results());
            assertTrue(d.all(Write.class).stream().flatMap(w -> w.ops().stream())
                    .noneMatch(op -> op instanceof ZkOp.PutOffset), d.all(Write.class).toString());
            assertEquals(Map.of(tp(0), stream("a"), tp(1), stream("b")), d.view(G).owners());
            assertEquals(3, d.view(G).generation());
        }
    }

    /** DESIGN §5 graceful handover: stop everyone, record the handover, resign. */
    @Nested
    class GracefulHandover {
        @BeforeEach
        void stable() {
            twoStableMembers();
        }

        @Test
        void handoverStopsEveryoneThenRecordsItThenResigns() {
            List<CoordinatorEffect> effects = d.feed(new CoordinatorEvent.HandoverRequested());
            assertEquals(Coordinator.Role.HANDING_OVER, d.coordinator.role());
            assertTrue(effects.contains(new CancelTimer(new PingDue(G, "a"))));
            assertTrue(effects.contains(new CancelTimer(new PingDue(G, "b"))));
            assertEquals(new StopRequest(EPOCH, 2), d.pending(1, StopRequest.class).request());
            assertEquals(new StopRequest(EPOCH, 2), d.pending(2, StopRequest.class).request());

            d.feed(new CoordinatorEvent.TimerFired(new PingDue(G, "a")));
            assertTrue(d.sent(1, PingRequest.class).isEmpty(), "no more pings");

            d.ackStop(1);
            assertTrue(d.writes.isEmpty());
            d.ackStop(2);
            Write w = d.onlyWrite();
            assertEquals(List.of(new ZkOp.PutHandover(EPOCH)), w.ops());
            assertTrue(w.fenced());
            assertEquals(EPOCH, w.epoch());

            effects = d.commit(w.writeId());
            assertTrue(effects.contains(new Resign(false)), effects.toString());
            assertEquals(new HandedOver(EPOCH), effects.get(effects.size() - 1));
            assertEquals(Coordinator.Role.CLOSED, d.coordinator.role());
        }

        /** Both Stops answered and the handover record committed, with another broker registered. */
        private List<CoordinatorEffect> handOverWithAStandby() {
            d.feed(new CoordinatorEvent.BrokersChanged(List.of(
                    new shepherd.protocol.BrokerInfo(CoordinatorDriver.BROKER_ID, "h", 1, "h-1"),
                    new shepherd.protocol.BrokerInfo(CoordinatorDriver.BROKER_ID + 1, "h", 2, "h-2"))));
            d.feed(new CoordinatorEvent.HandoverRequested());
            d.ackStop(1);
            d.ackStop(2);
            return d.commit(d.onlyWrite().writeId());
        }

        @Test
        void withAStandbyTheMembersAreLetGoOnceTheNextCoordinatorIsKnown() {
            List<CoordinatorEffect> effects = handOverWithAStandby();
            assertTrue(effects.contains(new Resign(false)), effects.toString());
            assertTrue(only(effects, CloseConnection.class).isEmpty(), "members kept until a successor is known");
            assertTrue(only(effects, HandedOver.class).isEmpty());
            assertEquals(Coordinator.Role.CLOSED, d.coordinator.role());

            d.feed(new CoordinatorEvent.LeaderObserved(CoordinatorDriver.BROKER_ID, EPOCH)); // ourselves: not it
            effects = d.feed(new CoordinatorEvent.LeaderObserved(CoordinatorDriver.BROKER_ID + 1, EPOCH + 2));
            assertEquals(List.of(new CloseConnection(1), new CloseConnection(2)), only(effects, CloseConnection.class));
            assertEquals(new HandedOver(EPOCH), effects.get(effects.size() - 1));
            d.consult(9);
            assertEquals(CoordinatorDriver.BROKER_ID + 1, d.lastResponse(9, ConsultResponse.class).coordinatorId(),
                    "our last Consult answers name the successor");
        }

        @Test
        void withAStandbyThatDoesNotWinTheMembersAreLetGoAfterTheGrace() {
            handOverWithAStandby();
            List<CoordinatorEffect> effects = d.fire(new CoordinatorTimer.HandoverLinger());
            assertEquals(List.of(new CloseConnection(1), new CloseConnection(2)), only(effects, CloseConnection.class));
            assertEquals(new HandedOver(EPOCH), effects.get(effects.size() - 1));
        }

        @Test
        void handoverRecordsItselfOnlyAfterTheOffsetsOfTheStopsAreWritten() {
            // The handover record bumps the epoch node's version, so a fenced offset write queued behind it would
            // fail its epoch check and lose the Stop answers' offsets (consumers would re-deliver them):
            //   1. both members answer the handover Stop with offsets; a's offsets go out in a multi, b's queue
            //      behind it (one multi in flight per group);
            //   2. every Stop is answered, so PutHandover is sent at once, ahead of b's offsets;
            //   3. PutHandover commits and changes /consumers/epoch; b's multi then fails the epoch check.
            // Hence the handover record waits until every group's writes are durable.
            d.feed(new CoordinatorEvent.HandoverRequested());
            d.answer(1, StopRequest.class, new StopResponse(ErrorCode.NONE, List.of(offset(0, 7))));
            Write first = d.onlyWrite();
            assertEquals(List.of(new ZkOp.PutOffset(G, tp(0), 7, "a")), first.ops());
            d.answer(2, StopRequest.class, new StopResponse(ErrorCode.NONE, List.of(offset(1, 9))));
            assertEquals(1, d.writes.size(), "b's offsets wait for a's multi; the handover waits for both: "
                    + d.writes);
            d.commit(first.writeId());
            Write second = d.onlyWrite();
            assertEquals(List.of(new ZkOp.PutOffset(G, tp(1), 9, "b")), second.ops());
            d.commit(second.writeId());
            assertEquals(List.of(new ZkOp.PutHandover(EPOCH)), d.onlyWrite().ops());
        }

        @Test
        void sessionExpiryDuringHandoverDoesNotRejoinTheElection() {
            // An expiry while HANDING_OVER (the broker is shutting down) ends the handover, as a fenced write does
            // (Resign(false) + HandedOver), instead of running for election again:
            //   1. HandoverRequested → Stops sent, role HANDING_OVER;
            //   2. the session expires before every Stop is acknowledged;
            //   3. a core that emitted RunForElection would return to FOLLOWER: the closing broker may win again,
            //      and HandedOver never comes, so the runtime's shutdown would wait for nothing.
            d.feed(new CoordinatorEvent.HandoverRequested());
            List<CoordinatorEffect> effects = d.feed(new CoordinatorEvent.ZkExpired());
            assertFalse(effects.contains(new RunForElection()), effects.toString());
            assertEquals(Coordinator.Role.CLOSED, d.coordinator.role());
        }

        @Test
        void handoverWaitsOutTheLeaseOfAMemberThatDoesNotStop() {
            long lastGrant = d.history.stream().filter(t -> t.effect() instanceof SendRequest s
                    && s.request() instanceof StartRequest).mapToLong(CoordinatorDriver.Timed::atMs).max().orElseThrow();
            d.feed(new CoordinatorEvent.HandoverRequested());
            d.ackStop(1);
            assertTrue(d.writes.isEmpty());
            assertEquals(d.config.leaseSurelyOverMs(lastGrant, LEASE_MS),
                    d.deadline(new CoordinatorTimer.HandoverDeadline()));
            d.fire(new CoordinatorTimer.HandoverDeadline());
            assertEquals(List.of(new ZkOp.PutHandover(EPOCH)), d.onlyWrite().ops());
        }
    }

    /** DescribeGroups: a read-only answer from the coordinator's memory; nothing written, nobody commanded. */
    /**
     * A group with no members may have its offsets reset by an operator ({@code shepherd offsets reset}) behind the
     * coordinator's back: before it Starts anyone in such a group again, it reads the group from ZooKeeper, after
     * the new member's registration is written, and Starts with the offsets it finds (a lowered one included).
     */
    @Nested
    class OffsetsOfAnEmptyGroup {
        static final ZkRead READ = new ZkRead.Group(G);

        /** a was started alone (generation 1), committed 40 and 70, left with 50 on partition 0; owners deleted. */
        @BeforeEach
        void emptiedAfterCommits() {
            d.activate(EPOCH);
            d.join(1, G, "a", "t");
            d.request(1, new OffsetCommitRequest(G, "a", EPOCH, 1, List.of(offset(0, 40), offset(1, 70))));
            d.answerWrites();
            d.request(1, new LeaveRequest(G, "a", List.of(offset(0, 50))));
            d.settle();
            GroupView v = d.view(G);
            assertEquals(Set.of(), v.members());
            assertEquals(Map.of(tp(0), 50L, tp(1), 70L), v.offsets());
            assertEquals(Map.of(), v.owners());
            assertEquals(2, v.generation());
        }

        /** What an operator's reset leaves in ZooKeeper once b's registration is there too: 50 lowered to 5. */
        GroupSnapshot reset(String... members) {
            Map<String, Registration> registrations = new java.util.TreeMap<>();
            for (String m : members) {
                registrations.put(m, registration("t"));
            }
            return GroupSnapshot.of(2, "range", registrations, Map.of(), Map.of(tp(0), 5L, tp(1), 70L));
        }

        List<CoordinatorEffect> answer(GroupSnapshot snapshot) {
            d.takeRead(READ);
            return d.feed(new CoordinatorEvent.GroupRead(G, snapshot, d.now));
        }

        Map<String, Long> startedAt(long conn) {
            Map<String, Long> offsets = new java.util.TreeMap<>();
            single(d.sent(conn, StartRequest.class)).assigned().forEach(pa -> offsets.put(pa.partition(), pa.offset()));
            return offsets;
        }

        @Test
        void aNewMemberIsStartedAtTheOffsetsReadAfterItsRegistrationIncludingALoweredOne() {
            d.register(2, G, "b", "t");
            assertFalse(d.reads.contains(READ), "read before the registration is written: " + d.reads);
            d.answerWrites();
            assertEquals(ErrorCode.NONE, d.lastResponse(2, RegisterResponse.class).errorCode());
            assertEquals(List.of(READ), d.reads, "the group is read once its registration is written");
            d.settle();
            assertTrue(d.sent(2).isEmpty(), "nothing is sent before the read answers: " + d.sent(2));

            List<CoordinatorEffect> effects = answer(reset("b"));
            assertEquals(1, only(effects, Notice.class).size(), effects.toString());
            d.settle();
            assertEquals(Map.of("1-0", 5L, "1-1", 70L), startedAt(2));
            GroupView v = d.view(G);
            assertTrue(v.stable(), v.toString());
            assertEquals(Map.of(tp(0), 5L, tp(1), 70L), v.offsets());
        }

        @Test
        void aReportAfterTheResetIsComparedWithTheResetOffsetNotTheOldOne() {
            d.join(2, G, "b", "t");
            answer(reset("b"));
            d.settle();
            d.request(2, new OffsetCommitRequest(G, "b", EPOCH, 3, List.of(offset(0, 6))));
            assertTrue(hasOp(List.of(d.onlyWrite()), new ZkOp.PutOffset(G, tp(0), 6, "b")), d.writes.toString());
            d.answerWrites();
            assertEquals(6L, d.view(G).offsets().get(tp(0)));
        }

        @Test
        void aMemberChangeReadsOnlyTheMemberListAndTheRefilledGroupIsStillReReadAfterTheRegistration() {
            // 1. the group is empty; a member change makes us read its member list (M1), which has no offsets;
            // 2. the operator resets the offsets to 5; b registers and its registration is written;
            // 3. M1's answer comes: it must not stand for the re-read. b waits for a group read of its own.
            ZkRead members = new ZkRead.Members(G);
            d.feed(new CoordinatorEvent.GroupMemberChange(G));
            assertEquals(List.of(members), d.reads, "the member list only, not the group's owners and offsets");
            d.join(2, G, "b", "t");
            assertEquals(List.of(members, READ), d.reads, "b's re-read, issued after its registration");
            d.takeRead(members);
            d.feed(new CoordinatorEvent.MembersRead(G, List.of("b"), d.now));
            d.settle();
            assertTrue(d.sent(2).isEmpty(), "the member list released b's run: " + d.sent(2));

            answer(reset("b"));
            d.settle();
            assertEquals(Map.of("1-0", 5L, "1-1", 70L), startedAt(2));
        }

        @Test
        void aMemberRegisteringWhileTheReReadIsOutJoinsTheOneRunThatFollowsIt() {
            d.join(2, G, "b", "t");
            d.join(3, G, "c", "t");
            assertEquals(List.of(READ), d.reads, "one read for both");
            assertTrue(d.sent(2).isEmpty() && d.sent(3).isEmpty());

            answer(reset("b", "c"));
            d.settle();
            assertEquals(Map.of("1-0", 5L), startedAt(2));
            assertEquals(Map.of("1-1", 70L), startedAt(3));
            assertEquals(3, d.view(G).generation(), "one run for both");
        }

        @Test
        void aGroupThatEmptiesAgainWhileTheReReadIsOutNeedsAReadAfterTheNextRegistration() {
            d.join(2, G, "b", "t");
            d.request(2, new LeaveRequest(G, "b", null));
            d.settle();
            answer(reset()); // issued after b's registration, before b left: says nothing about what follows
            d.join(3, G, "c", "t");
            assertEquals(List.of(READ), d.reads, "c's own read");
            assertTrue(d.sent(3).isEmpty());
            answer(GroupSnapshot.of(2, "range", Map.of("c", registration("t")), Map.of(), Map.of(tp(0), 0L)));
            d.settle();
            assertEquals(Map.of("1-0", 0L, "1-1", Coordinator.OFFSET_NONE), startedAt(3));
        }

        @Test
        void aFailedReReadIsRetriedAndStillHoldsTheRunBack() {
            d.join(2, G, "b", "t");
            d.takeRead(READ);
            d.feed(new CoordinatorEvent.ZkReadFailed(READ, "connection loss"));
            d.fire(new CoordinatorTimer.ZkRetry());
            d.settle();
            assertTrue(d.sent(2).isEmpty());
            answer(reset("b"));
            d.settle();
            assertEquals(Map.of("1-0", 5L, "1-1", 70L), startedAt(2));
        }

        @Test
        void anElectionWhileTheReReadIsOutLoadsTheGroupAnewAndItsAnswerIsIgnored() {
            d.join(2, G, "b", "t");
            d.feed(new CoordinatorEvent.ZkExpired());
            answer(reset("b")); // the old session's answer: the reset forgot the group
            assertEquals(Coordinator.Role.FOLLOWER, d.coordinator.role());

            d.win(EPOCH + 1);
            d.load(Map.of(G, reset("b")));
            d.advance(10);
            d.register(3, G, "b", "t");
            d.answerWrites();
            d.fire(new LeaseWaitOver());
            d.settle();
            assertEquals(Map.of("1-0", 5L, "1-1", 70L), startedAt(3));
        }

        @Test
        void aGroupLoadedWithoutMembersIsReadAgainBeforeItsFirstStart() {
            CoordinatorDriver fresh = new CoordinatorDriver();
            d = fresh;
            d.boot();
            d.win(EPOCH);
            d.load(Map.of(G, GroupSnapshot.of(4, "range", Map.of(), Map.of(), Map.of(tp(0), 50L))));
            d.fire(new LeaseWaitOver());
            d.join(1, G, "b", "t");
            assertEquals(List.of(READ), d.reads);
            assertTrue(d.sent(1).isEmpty());
            answer(GroupSnapshot.of(4, "range", Map.of("b", registration("t")), Map.of(), Map.of(tp(0), 5L)));
            d.settle();
            assertEquals(Map.of("1-0", 5L, "1-1", Coordinator.OFFSET_NONE), startedAt(1));
        }
    }

    @Nested
    class DescribeGroups {
        DescribeGroupsResponse describe(long conn, String... groups) {
            List<CoordinatorEffect> effects = d.request(conn, new DescribeGroupsRequest(List.of(groups)));
            assertTrue(only(effects, Write.class).isEmpty(), effects.toString());
            assertTrue(only(effects, SendRequest.class).isEmpty(), effects.toString());
            assertTrue(only(effects, CloseConnection.class).isEmpty(), effects.toString());
            return d.lastResponse(conn, DescribeGroupsResponse.class);
        }

        @Test
        void stableGroupShowsMembersPingAgesOwnersAndCommittedOffsets() {
            twoStableMembers();
            d.fire(new PingDue(G, "a"));
            d.answer(1, PingRequest.class, new PingResponse(ErrorCode.NONE, 2, List.of(offset(0, 10))));
            d.answerWrites();
            long answeredAt = d.now;
            d.advance(300);

            DescribeGroupsResponse r = describe(9, G);
            assertEquals(ErrorCode.NONE, r.errorCode());
            assertEquals(CoordinatorDriver.BROKER_ID, r.coordinatorId());
            assertEquals(EPOCH, r.coordinatorEpoch());
            GroupDescription g = single(r.groups());
            assertEquals(new GroupDescription(G, ErrorCode.NONE, 2, "IDLE",
                    List.of(new MemberDescription("a", MemberDescription.HOST_UNKNOWN,
                                    CoordinatorDriver.subscription("t"), CoordinatorDriver.PING_INTERVAL_MS,
                                    d.now - answeredAt),
                            new MemberDescription("b", MemberDescription.HOST_UNKNOWN,
                                    CoordinatorDriver.subscription("t"),
                                    CoordinatorDriver.PING_INTERVAL_MS, MemberDescription.NEVER)),
                    List.of(new PartitionDescription("t", tp(0).partition().toString(), "a", 0, 10),
                            new PartitionDescription("t", tp(1).partition().toString(), "b", 0,
                                    PartitionDescription.OFFSET_NONE))), g);
        }

        @Test
        void eachMemberShowsThePeerOfItsCurrentConnection() {
            d.feed(new CoordinatorEvent.ConnectionPeer(1, "10.0.0.1"));
            d.feed(new CoordinatorEvent.ConnectionPeer(2, "10.0.0.2"));
            twoStableMembers();
            assertEquals(List.of("10.0.0.1", "10.0.0.2"), hosts());

            // "a" registers again from elsewhere: the new connection's peer replaces the old one's.
            d.feed(new CoordinatorEvent.ConnectionPeer(3, "10.0.0.3"));
            d.register(3, G, "a", "t");
            assertEquals(List.of("10.0.0.3", "10.0.0.2"), hosts());
        }

        @Test
        void aMemberWithoutAConnectionOrWhosePeerWasNeverToldHasNoHost() {
            d.feed(new CoordinatorEvent.ConnectionPeer(1, "10.0.0.1"));
            twoStableMembers(); // no peer for connection 2, as in a runtime that never sends one
            assertEquals(List.of("10.0.0.1", MemberDescription.HOST_UNKNOWN), hosts());

            d.feed(new CoordinatorEvent.ConnectionClosed(1)); // still a member until it misses its pings
            assertEquals(List.of(MemberDescription.HOST_UNKNOWN, MemberDescription.HOST_UNKNOWN), hosts());
        }

        @Test
        void aClosedConnectionsPeerIsForgotten() {
            d.feed(new CoordinatorEvent.ConnectionPeer(4, "10.0.0.4"));
            d.feed(new CoordinatorEvent.ConnectionClosed(4));
            twoStableMembers();
            d.register(4, G, "c", "t"); // the same id again: the closed connection's peer must not show
            assertEquals(MemberDescription.HOST_UNKNOWN, single(describe(9, G).groups()).members().get(2).host());
        }

        @Test
        void thePeerOfAConnectionThatOnlyConsultedSurvivesASessionExpiry() {
            d.activate(EPOCH);
            d.feed(new CoordinatorEvent.ConnectionPeer(1, "10.0.0.1"));
            d.consult(1);
            d.feed(new CoordinatorEvent.ZkExpired()); // the reset closes members' connections, not this one
            d.activate(EPOCH + 1);
            d.join(1, G, "a", "t");
            assertEquals(List.of("10.0.0.1"), hosts());
        }

        private List<String> hosts() {
            return single(describe(9, G).groups()).members().stream().map(MemberDescription::host).toList();
        }

        @Test
        void aPingAnsweredWithAnErrorIsNotAnAnswer() {
            twoStableMembers();
            d.fire(new PingDue(G, "a"));
            d.answer(1, PingRequest.class, PingResponse.error(ErrorCode.STALE_COORDINATOR_EPOCH));
            assertEquals(MemberDescription.NEVER, single(describe(9, G).groups()).members().get(0).lastPingAgeMs());
        }

        @Test
        void reRegistrationForgetsThePreviousIncarnationsPing() {
            twoStableMembers();
            d.fire(new PingDue(G, "a"));
            d.answer(1, PingRequest.class, new PingResponse(ErrorCode.NONE, 2, null));
            d.register(3, G, "a", "t");
            assertEquals(MemberDescription.NEVER, single(describe(9, G).groups()).members().get(0).lastPingAgeMs());
        }

        @Test
        void noGroupIdsMeansEveryGroupAndAnUnknownGroupIsUnknownConsumer() {
            twoStableMembers();
            d.join(3, "h", "c", "t");
            assertEquals(List.of(G, "h"), describe(9).groups().stream().map(GroupDescription::groupId).toList());

            DescribeGroupsResponse r = describe(9, "nope", "h");
            assertEquals(ErrorCode.NONE, r.errorCode());
            assertEquals(GroupDescription.unknown("nope"), r.groups().get(0));
            assertEquals("h", r.groups().get(1).groupId());
            assertEquals(ErrorCode.NONE, r.groups().get(1).errorCode());
        }

        @Test
        void stateNamesTheTriggerAndThePhaseOfTheRunInProgress() {
            twoStableMembers();
            d.register(3, G, "c", "t");
            d.answerWrites(); // the registration commits; the run begins and stops everyone
            assertEquals("RUNNING/STOPPING", single(describe(9, G).groups()).state());
            d.settle();
            assertEquals("IDLE", single(describe(9, G).groups()).state());
        }

        @Test
        void nonCoordinatorAnswersNotCoordinatorNamingTheCoordinatorItKnows() {
            d.boot();
            d.feed(new CoordinatorEvent.LeaderObserved(3, 9));
            DescribeGroupsResponse r = describe(9, G);
            assertEquals(new DescribeGroupsResponse(ErrorCode.NOT_COORDINATOR, 3, 9, List.of()), r);
        }

        @Test
        void coordinatorStillLoadingIsNotReady() {
            d.boot();
            d.win(EPOCH);
            assertEquals(ErrorCode.COORDINATOR_NOT_READY, describe(9).errorCode());
        }
    }
}
