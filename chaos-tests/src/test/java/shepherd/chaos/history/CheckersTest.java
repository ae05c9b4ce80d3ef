package shepherd.chaos.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import shepherd.chaos.history.Entry.Delivered;
import shepherd.chaos.history.Entry.Died;
import shepherd.chaos.history.Entry.Elected;
import shepherd.chaos.history.Entry.EpochSeen;
import shepherd.chaos.history.Entry.FetchStarted;
import shepherd.chaos.history.Entry.FetchStopped;
import shepherd.chaos.history.Entry.Healed;
import shepherd.chaos.history.Entry.OffsetRead;
import shepherd.chaos.history.Entry.OwnerRead;
import shepherd.chaos.history.Entry.Produced;
import shepherd.chaos.history.Entry.Written;

/**
 * Every checker passes a clean history and catches the violation it exists for (CONVENTIONS 13): a partition
 * handed over cleanly, then the same history with the bug put back.
 */
class CheckersTest {
    private static final String G = "billing";

    private static FetchStarted start(long t, String c, int epoch, int gen) {
        return new FetchStarted(t, G, c, "t", "1-0", epoch, gen, 0);
    }

    private static FetchStopped stop(long t, String c, int epoch, int gen) {
        return new FetchStopped(t, G, c, "t", "1-0", epoch, gen, 0);
    }

    /** c1 fetches 1-0 in generation 1, stops at 20; c2 takes over at 30 in generation 2 and keeps it. */
    private static List<Entry> cleanHandover() {
        return List.of(start(10, "c1", 1, 1), stop(20, "c1", 1, 1), start(30, "c2", 1, 2),
                new OwnerRead(40, G, "t", "1-0", "c2", 2));
    }

    @Test
    void aCleanHandoverSatisfiesEveryChecker() {
        History h = History.of(cleanHandover());
        assertEquals(List.of(), Checkers.exclusiveOwnership(h));
        assertEquals(List.of(), Checkers.noStaleCommandApplied(h));
        assertEquals(List.of(), Checkers.fencedWrites(h));
        assertEquals(List.of(), Checkers.convergence(h, 1_000));
    }

    @Test
    void exclusiveOwnershipCatchesOverlappingFetches() {
        // The new owner starts before the old one stopped (the lease wait skipped).
        History h = History.of(List.of(start(10, "c1", 1, 1), start(15, "c2", 1, 2), stop(20, "c1", 1, 1)));
        assertEquals(1, Checkers.exclusiveOwnership(h).size(), Checkers.exclusiveOwnership(h).toString());
    }

    @Test
    void exclusiveOwnershipEndsAKilledConsumersFetchAtItsDeath() {
        History clean = History.of(List.of(start(10, "c1", 1, 1), new Died(20, G, "c1"), start(30, "c2", 1, 2)));
        assertEquals(List.of(), Checkers.exclusiveOwnership(clean));
        History early = History.of(List.of(start(10, "c1", 1, 1), start(15, "c2", 1, 2), new Died(20, G, "c1")));
        assertEquals(1, Checkers.exclusiveOwnership(early).size());
    }

    @Test
    void noStaleCommandAppliedCatchesAStartOfAnOlderEpoch() {
        History h = History.of(List.of(new EpochSeen(5, G, "c1", 3), start(10, "c1", 2, 7)));
        assertEquals(1, Checkers.noStaleCommandApplied(h).size());
    }

    @Test
    void noStaleCommandAppliedCatchesAStartWhileAnotherGenerationStillFetches() {
        History h = History.of(List.of(start(10, "c1", 1, 1),
                new FetchStarted(12, G, "c1", "t", "2-0", 1, 2, 0)));
        assertEquals(1, Checkers.noStaleCommandApplied(h).size());
    }

    @Test
    void fencedWritesCatchesAWriteCommittedAfterANewerEpochBegan() {
        History clean = History.of(List.of(new Elected(1, 1, 1, 100), new Written(2, 1, 1, 150, "owners"),
                new Elected(3, 2, 2, 200)));
        assertEquals(List.of(), Checkers.fencedWrites(clean));
        History zombie = History.of(List.of(new Elected(1, 1, 1, 100), new Elected(3, 2, 2, 200),
                new Written(4, 1, 1, 250, "owners")));
        assertEquals(1, Checkers.fencedWrites(zombie).size());
    }

    @Test
    void oneCoordinatorPerEpochCatchesTwoElectionsWithOneEpoch() {
        History clean = History.of(List.of(new Elected(1, 1, 1, 100), new Elected(3, 2, 2, 200)));
        assertEquals(List.of(), Checkers.oneCoordinatorPerEpoch(clean));
        History unbumped = History.of(List.of(new Elected(1, 1, 1, 100), new Elected(3, 2, 1, 200)));
        assertEquals(1, Checkers.oneCoordinatorPerEpoch(unbumped).size());
    }

    @Test
    void fencedWritesCatchesAnOffsetGoingBack() {
        History h = History.of(List.of(new OffsetRead(1, G, "t", "1-0", 40), new OffsetRead(2, G, "t", "1-0", 30)));
        assertEquals(1, Checkers.fencedWrites(h).size());
    }

    @Test
    void noLostRecordsCatchesARecordNobodyGot() {
        List<Entry> entries = List.of(new Produced(1, "t", "1-0", 0), new Produced(2, "t", "1-0", 1),
                new Delivered(3, G, "c1", "t", "1-0", 0, 1));
        List<Violation> lost = Checkers.noLostRecords(History.of(entries), Map.of(G, Set.of("t")));
        assertEquals(1, lost.size());
        assertTrue(lost.get(0).detail().contains("t/1-0@1"), lost.toString());
    }

    @Test
    void duplicatesAreCountedPerGroup() {
        History h = History.of(List.of(new Delivered(1, G, "c1", "t", "1-0", 0, 1),
                new Delivered(2, G, "c2", "t", "1-0", 0, 2), new Delivered(3, "audit", "a1", "t", "1-0", 0, 1)));
        assertEquals(Map.of(G, 1), Checkers.duplicates(h));
    }

    @Test
    void convergenceCatchesAPartitionNobodyOrTheWrongConsumerFetches() {
        History orphan = History.of(List.of(start(10, "c1", 1, 1), stop(20, "c1", 1, 1), new Healed(25),
                new OwnerRead(40, G, "t", "1-0", "c2", 2)));
        assertEquals(1, Checkers.convergence(orphan, 1_000).size());
        History late = History.of(List.of(new Healed(0), start(5_000, "c2", 1, 2),
                new OwnerRead(6_000, G, "t", "1-0", "c2", 2)));
        assertEquals(1, Checkers.convergence(late, 1_000).size(), "converged after the bound");
    }
}
