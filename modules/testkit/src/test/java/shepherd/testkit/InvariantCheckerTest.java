package shepherd.testkit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import shepherd.coordination.assign.Assignment;
import shepherd.coordination.assign.AssignmentInput;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;

/**
 * Each invariant of DESIGN §7 gets a history the checker must accept and a negative control it must catch: a checker
 * that accepts everything would pass the first kind and fail the second.
 */
class InvariantCheckerTest {
    private static final String G = "g";
    private static final String T = "t";
    private static final String P0 = "0-0";
    private static final String P1 = "0-1";

    private final InvariantChecker checker = new InvariantChecker();

    private List<Invariant> broken() {
        return checker.violations().stream().map(Violation::invariant).collect(Collectors.toList());
    }

    private void assertOnly(Invariant invariant, int count) {
        assertEquals(Collections.nCopies(count, invariant), broken(), () -> checker.violations().toString());
    }

    private void assertClean() {
        assertTrue(checker.ok(), () -> checker.violations().toString());
        assertEquals(0, checker.violationCount());
    }

    /** ExclusiveOwnership: fetch intervals of different instances of one partition never overlap. */
    @Nested
    class ExclusiveOwnership {
        @Test
        void overlappingFetchOfTwoConsumersIsCaught() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 300);
            checker.fetchStarted("c2#1", "c2", G, T, P0, 100, 400);
            assertOnly(Invariant.ExclusiveOwnership, 1);
            Violation v = checker.first().orElseThrow();
            assertEquals(100, v.atMs());
            assertTrue(v.detail().contains("c1#1") && v.detail().contains("c2#1") && v.detail().contains("g:t/0-0"),
                    v.detail());
        }

        @Test
        void touchingIntervalsAreNotAnOverlap() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 300);
            checker.fetchStopped("c1#1", G, T, P0, 100);
            checker.fetchStarted("c2#1", "c2", G, T, P0, 100, 400);
            // and touching through the lease deadline rather than a stop
            checker.fetchStarted("c3#1", "c3", G, T, P1, 100, 200);
            checker.fetchStarted("c4#1", "c4", G, T, P1, 200, 500);
            assertClean();
        }

        @Test
        void renewalThatExtendsIntoAnotherHoldersIntervalIsCaught() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 100);
            checker.fetchStarted("c2#1", "c2", G, T, P0, 100, 300); // touches c1's interval: fine so far
            assertClean();
            checker.leaseRenewed("c1#1", 100, 200); // renewal at the deadline extends c1 into c2's interval
            assertOnly(Invariant.ExclusiveOwnership, 1);
        }

        @Test
        void renewalWithinTheLeaseKeepsTheIntervalOpen() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 100);
            checker.leaseRenewed("c1#1", 90, 190);
            checker.fetchStarted("c2#1", "c2", G, T, P0, 150, 250);
            assertOnly(Invariant.ExclusiveOwnership, 1);
        }

        @Test
        void leaseExpiryEndsAnIntervalWithoutStop() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 100);
            checker.fetchStarted("c2#1", "c2", G, T, P0, 150, 250); // c1 never stopped, but its lease ran out at 100
            checker.leaseRenewed("c1#1", 160, 260); // too late: starts nothing
            checker.fetchStarted("c3#1", "c3", G, T, P1, 170, 270);
            checker.fetchStopped("c1#1", G, T, P0, 180);
            assertClean();
        }

        @Test
        void anOverlapIsReportedOnceNotAtEveryRenewal() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 100);
            checker.fetchStarted("c2#1", "c2", G, T, P0, 50, 150);
            checker.leaseRenewed("c1#1", 60, 160);
            checker.leaseRenewed("c2#1", 70, 170);
            assertOnly(Invariant.ExclusiveOwnership, 1);
        }

        @Test
        void twoIncarnationsOfOneConsumerAreDifferentHolders() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 100);
            checker.fetchStarted("c1#2", "c1", G, T, P0, 50, 150);
            assertOnly(Invariant.ExclusiveOwnership, 1);
        }

        @Test
        void instanceGoneEndsEveryIntervalItHolds() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 500);
            checker.fetchStarted("c1#1", "c1", G, T, P1, 0, 500);
            checker.instanceGone("c1#1", 50);
            checker.fetchStarted("c1#2", "c1", G, T, P0, 50, 550);
            checker.fetchStarted("c2#1", "c2", G, T, P1, 60, 560);
            checker.leaseRenewed("c1#1", 70, 570); // the dead incarnation holds nothing any more
            assertClean();
        }

        @Test
        void otherPartitionsAndGroupsDoNotConflict() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 500);
            checker.fetchStarted("c2#1", "c2", G, T, P1, 0, 500);
            checker.fetchStarted("c3#1", "c3", "other-group", T, P0, 0, 500);
            checker.fetchStarted("c4#1", "c4", G, "u", P0, 0, 500);
            assertClean();
        }
    }

    /** BarrierSound: Start only after the previous owner acknowledged Stop or its lease surely expired. */
    @Nested
    class BarrierSound {
        private final List<String[]> p0 = List.<String[]>of(new String[] {T, P0});

        @Test
        void startWhilePreviousOwnerStillLeasedIsCaught() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 300);
            checker.startSent("b1#1", 1, G, "c2", p0, 100);
            assertOnly(Invariant.BarrierSound, 1);
            assertTrue(checker.first().orElseThrow().detail().contains("c1#1"));
        }

        @Test
        void startAfterPreviousOwnerStoppedIsSound() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 300);
            checker.fetchStopped("c1#1", G, T, P0, 100);
            checker.startSent("b1#1", 1, G, "c2", p0, 100);
            checker.fetchStarted("c2#1", "c2", G, T, P0, 110, 400);
            assertClean();
        }

        @Test
        void startOnceThePreviousOwnersLeaseExpiredIsSound() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 300);
            checker.startSent("b1#1", 1, G, "c2", p0, 300);
            checker.startSent("b1#1", 1, G, "c3", p0, 301);
            assertClean();
        }

        @Test
        void startToTheHoldingConsumerItselfIsNotABarrierBreach() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 300);
            checker.startSent("b1#1", 1, G, "c1", p0, 100);
            assertClean();
        }
    }

    /** OneCoordinatorPerEpoch: an epoch belongs to one broker incarnation for ever. */
    @Nested
    class OneCoordinatorPerEpoch {
        @Test
        void twoIncarnationsWithOneEpochAreCaught() {
            checker.electionWon("b1#1", 1, 0);
            checker.commandSent("b1#1", 1, 10);
            checker.commandSent("b2#1", 1, 20);
            checker.commandSent("b2#1", 1, 30); // the same conflict is not reported again
            assertOnly(Invariant.OneCoordinatorPerEpoch, 1);
            assertTrue(checker.first().orElseThrow().detail().contains("b2#1"));
        }

        @Test
        void secondWinnerOfAnEpochIsCaught() {
            checker.electionWon("b1#1", 3, 0);
            checker.electionWon("b2#1", 3, 10);
            assertOnly(Invariant.OneCoordinatorPerEpoch, 1);
        }

        @Test
        void aWinLearnedAfterANewerOneIsNotAViolation() {
            // b2 won epoch 2, then paused; b1 won epoch 3; b2 resumes and only now processes its win.
            checker.electionWon("b1#1", 3, 0);
            checker.electionWon("b2#1", 2, 10);
            assertClean();
        }

        @Test
        void startSentWithAnotherIncarnationsEpochIsCaught() {
            checker.electionWon("b1#1", 1, 0);
            checker.startSent("b2#1", 1, G, "c1", List.<String[]>of(new String[] {T, P0}), 10);
            assertOnly(Invariant.OneCoordinatorPerEpoch, 1);
        }

        @Test
        void successiveCoordinatorsWithIncreasingEpochsAreFine() {
            checker.epochBumped(11, "b1#1", 1, 0);
            checker.electionWon("b1#1", 1, 0);
            checker.commandSent("b1#1", 1, 10);
            checker.electionWon("b2#1", 2, 20);
            checker.commandSent("b2#1", 2, 30);
            checker.commandSent("b1#1", 1, 40); // a deposed coordinator still using its own epoch: consumers reject it
            checker.electionWon("b1#2", 3, 50);
            checker.commandSent("b1#2", 3, 60);
            assertClean();
        }
    }

    /** FencedWrites: only the current epoch's session writes; offsets never decrease and come from the owner. */
    @Nested
    class FencedWrites {
        @Test
        void writeBySessionOfDeposedCoordinatorIsCaught() {
            checker.epochBumped(11, "b1#1", 1, 0);
            checker.coordinatorWriteCommitted(11, G, 10);
            checker.epochBumped(22, "b2#1", 2, 20);
            checker.coordinatorWriteCommitted(22, G, 30);
            assertClean();
            checker.coordinatorWriteCommitted(11, G, 40);
            assertOnly(Invariant.FencedWrites, 1);
            assertTrue(checker.first().orElseThrow().detail().contains("0xb"));
        }

        @Test
        void coordinatorWriteBeforeAnyEpochIsCaught() {
            checker.coordinatorWriteCommitted(11, G, 0);
            assertOnly(Invariant.FencedWrites, 1);
        }

        @Test
        void epochBumpThatDoesNotRaiseTheEpochIsCaught() {
            checker.epochBumped(11, "b1#1", 2, 0);
            checker.epochBumped(11, "b1#1", 2, 10);
            assertOnly(Invariant.FencedWrites, 1);
            checker.coordinatorWriteCommitted(11, G, 20); // the first bump's session is still the current one
            assertEquals(1, checker.violationCount());
        }

        @Test
        void offsetGoingBackwardsIsCaught() {
            checker.offsetCommitted(G, T, P0, 10L, 9L, "c1", "c1", 0);
            assertOnly(Invariant.FencedWrites, 1);
        }

        @Test
        void offsetsThatStayOrAdvanceAreFine() {
            checker.offsetCommitted(G, T, P0, null, 0L, "c1", "c1", 0);
            checker.offsetCommitted(G, T, P0, 0L, 5L, "c1", "c1", 10);
            checker.offsetCommitted(G, T, P0, 5L, 5L, "c1", "c1", 20);
            checker.offsetCommitted(G, T, P0, 5L, 7L, null, null, 30); // reporter unknown: owner clause skipped
            assertClean();
        }

        @Test
        void offsetFromNonOwnerIsCaught() {
            checker.offsetCommitted(G, T, P0, 3L, 4L, "c2", "c1", 0);
            checker.offsetCommitted(G, T, P0, 3L, 4L, "c2", null, 10); // nobody owns it
            assertOnly(Invariant.FencedWrites, 2);
        }
    }

    /** NoStaleCommandApplied: no command below the highest epoch seen, no Start without the Stop it follows. */
    @Nested
    class NoStaleCommandApplied {
        @Test
        void staleEpochCommandAppliedIsCaught() {
            checker.commandApplied("c1#1", "Ping", 1, 2, 5, false, 0);
            assertOnly(Invariant.NoStaleCommandApplied, 1);
        }

        @Test
        void commandsOfTheHighestEpochOrAboveAreFine() {
            checker.commandApplied("c1#1", "Ping", 2, 2, 5, false, 0);
            checker.commandApplied("c1#1", "Stop", 3, 2, 5, false, 10);
            checker.commandApplied("c1#1", "Start", 3, 3, 6, true, 20);
            checker.commandApplied("c2#1", "Start", 1, -1, 1, true, 30); // nothing seen yet
            assertClean();
        }

        @Test
        void startWithoutStopIsCaught() {
            checker.commandApplied("c1#1", "Start", 3, 3, 6, false, 0);
            assertOnly(Invariant.NoStaleCommandApplied, 1);
        }
    }

    /** AssignmentWellFormed: every subscribed partition has exactly one owner; only subscribed streams own. */
    @Nested
    class AssignmentWellFormed {
        private final AssignmentInput input = AssignmentInput.of(
                Map.of(T, List.of(new PartitionId(0, 0), new PartitionId(0, 1), new PartitionId(0, 2))),
                Map.of(T, List.of(new StreamId("c1", 0), new StreamId("c2", 0))));

        private TopicPartition tp(int n) {
            return new TopicPartition(T, new PartitionId(0, n));
        }

        @Test
        void unownedPartitionIsCaught() {
            Assignment assignment = Assignment.of(Map.of(tp(0), new StreamId("c1", 0), tp(1), new StreamId("c2", 0)));
            checker.assignmentComputed(G, input, assignment, 0);
            assertOnly(Invariant.AssignmentWellFormed, 1);
            assertTrue(checker.first().orElseThrow().detail().contains("t/0-2"));
        }

        @Test
        void ownerThatIsNotSubscribedIsCaught() {
            Assignment assignment = Assignment.of(Map.of(
                    tp(0), new StreamId("c1", 0), tp(1), new StreamId("c2", 0), tp(2), new StreamId("c3", 0)));
            checker.assignmentComputed(G, input, assignment, 0);
            assertOnly(Invariant.AssignmentWellFormed, 1);
            assertTrue(checker.first().orElseThrow().detail().contains("c3-0"));
        }

        @Test
        void unbalancedButWellFormedAssignmentIsNotAViolation() {
            StreamId c1 = new StreamId("c1", 0);
            checker.assignmentComputed(G, input, Assignment.of(Map.of(tp(0), c1, tp(1), c1, tp(2), c1)), 0);
            assertClean();
        }
    }

    /** TypeOK: inputs out of their domain are recorded, never thrown, and otherwise ignored. */
    @Nested
    class TypeOK {
        @Test
        void typeViolationsAreRecordedNotThrown() {
            assertDoesNotThrow(() -> {
                checker.fetchStarted("c1#1", "c1", null, T, P0, 0, 100);
                checker.fetchStarted("c1#1", "c1", G, T, P0, 0, -1);
                checker.commandSent("b1#1", -1, 0);
                checker.commandApplied("c1#1", "Poke", 1, 0, 0, true, 0);
                checker.commandApplied("c1#1", "Ping", 1, 0, -3, true, 0);
                checker.offsetCommitted(G, T, P0, -2L, 1L, "c1", "c1", 0);
                checker.startSent("b1#1", 1, G, "c2", null, 0);
                checker.assignmentComputed(G, null, null, 0);
                checker.leaseRenewed("c1#1", -5, 100);
                checker.electionWon("b1#1", 1, 100);
                checker.electionWon("b2#1", 2, 50); // time went back
            });
            assertOnly(Invariant.TypeOK, 10);
            // the rejected observations were ignored: c1#1 holds no interval (else this Start would breach the
            // barrier), and b2#1 did not claim epoch 2 (else b3#1 winning it would be a second winner)
            checker.startSent("b3#1", 2, G, "c2", List.<String[]>of(new String[] {T, P0}), 100);
            checker.electionWon("b3#1", 2, 100);
            assertEquals(10, checker.violationCount());
        }

        @Test
        void typeOkRecordsAFalseCondition() {
            checker.typeOk(true, "fine", 0);
            assertClean();
            checker.typeOk(false, "generation of g is -1", 10);
            assertOnly(Invariant.TypeOK, 1);
            assertEquals(new Violation(Invariant.TypeOK, 10, "generation of g is -1"), checker.first().orElseThrow());
        }

        @Test
        void anInstanceReportedWithAnotherConsumerIdIsATypeViolation() {
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 100);
            checker.fetchStarted("c1#1", "c2", G, T, P1, 0, 100);
            assertOnly(Invariant.TypeOK, 1);
        }
    }

    /** Reporting: what the simulation sees when a run breaks an invariant. */
    @Nested
    class Reporting {
        @Test
        void assertOkNamesTheContext() {
            assertDoesNotThrow(() -> checker.assertOk("reproduce with seed=42"));
            checker.fetchStarted("c1#1", "c1", G, T, P0, 0, 300);
            checker.fetchStarted("c2#1", "c2", G, T, P0, 100, 400);
            InvariantViolationException e =
                    assertThrows(InvariantViolationException.class, () -> checker.assertOk("reproduce with seed=42"));
            assertInstanceOf(AssertionError.class, e);
            assertTrue(e.getMessage().contains("reproduce with seed=42"), e.getMessage());
            assertTrue(e.getMessage().contains("ExclusiveOwnership at 100 ms"), e.getMessage());
            assertEquals("reproduce with seed=42", e.context());
            assertEquals(checker.violations(), e.violations());
        }

        @Test
        void longListsAreShortenedInTheMessage() {
            for (int i = 0; i < 25; i++) {
                checker.typeOk(false, "bad " + i, i);
            }
            InvariantViolationException e = assertThrows(InvariantViolationException.class, () -> checker.assertOk("x"));
            assertTrue(e.getMessage().startsWith("25 invariant violations (x):"), e.getMessage());
            assertTrue(e.getMessage().contains("and 5 more"), e.getMessage());
            assertEquals(25, e.violations().size());
        }

        @Test
        void failFastThrowsAtTheFirstViolation() {
            InvariantChecker fast = new InvariantChecker(true, "reproduce with seed=7");
            fast.fetchStarted("c1#1", "c1", G, T, P0, 0, 300);
            InvariantViolationException e = assertThrows(InvariantViolationException.class,
                    () -> fast.fetchStarted("c2#1", "c2", G, T, P0, 100, 400));
            assertTrue(e.getMessage().contains("reproduce with seed=7"), e.getMessage());
            assertEquals(Invariant.ExclusiveOwnership, e.violations().get(0).invariant());
            assertFalse(fast.ok());
        }

        @Test
        void violationReadsWell() {
            assertEquals("BarrierSound at 5 ms: something",
                    new Violation(Invariant.BarrierSound, 5, "something").toString());
            assertTrue(checker.first().isEmpty());
        }
    }
}
