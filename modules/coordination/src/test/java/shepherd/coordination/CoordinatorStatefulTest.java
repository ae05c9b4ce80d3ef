package shepherd.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.ActionChain;
import org.junit.jupiter.api.Test;
import shepherd.coordination.CoordinatorStatefulSteps.Step;
import shepherd.coordination.defect.Defect;

/**
 * Stateful tests of the coordinator core: random chains of registrations, leaves, closed connections, hung
 * consumers, commits, new partitions, partial deliveries and the passing of time, run against a cooperative
 * runtime ({@link CoordinatorStatefulHarness}) and held to a small reference model ({@link CoordinatorModel}).
 * The safety invariants (DESIGN §7: FencedWrites, ExclusiveOwnership per generation, BarrierSound at the consumer)
 * are checked after every action; after every settle, Convergence and NoLostTrigger in their strongest form: the
 * group is stable and exactly what the model says. jqwik shrinks a failing chain to a short script.
 *
 * <p>The negative control puts the seed's dropped trigger (D1) back and requires the quiesced check to notice;
 * without it a vacuous check would pass just as well.
 */
class CoordinatorStatefulTest {

    @Provide
    Arbitrary<ActionChain<CoordinatorStatefulHarness>> chains() {
        return CoordinatorStatefulSteps.chains(EnumSet.noneOf(Defect.class), 40, false);
    }

    @Property(tries = 200)
    void coordinatorKeepsEveryInvariantAndConvergesToTheModel(
            @ForAll("chains") ActionChain<CoordinatorStatefulHarness> chain) {
        CoordinatorStatefulHarness h = withInvariants(chain).run();
        // Whatever the chain ended with, a settled world must match the model.
        h.beginAction();
        h.settle();
        h.checkAll();
    }

    @Provide
    Arbitrary<ActionChain<CoordinatorStatefulHarness>> chainsWithRetriedCommits() {
        return CoordinatorStatefulSteps.chains(EnumSet.noneOf(Defect.class), 40, true);
    }

    /**
     * The same, with consumers that also send an earlier OffsetCommit again (a retried or reordered report, which
     * the coordinator promises never moves a committed offset back, D10).
     */
    @Property(tries = 200)
    void retriedCommitsNeverMoveACommittedOffsetBack(
            @ForAll("chainsWithRetriedCommits") ActionChain<CoordinatorStatefulHarness> chain) {
        CoordinatorStatefulHarness h = withInvariants(chain).run();
        h.beginAction();
        h.settle();
        h.checkAll();
    }

    static ActionChain<CoordinatorStatefulHarness> withInvariants(ActionChain<CoordinatorStatefulHarness> chain) {
        return chain
                .withInvariant("zookeeperMatchesTheCoordinatorsMirror",
                        CoordinatorStatefulHarness::zookeeperMatchesTheCoordinatorsMirror)
                .withInvariant("observationsAgreeWithTheView",
                        CoordinatorStatefulHarness::observationsAgreeWithTheView)
                .withInvariant("offsetsNeverGoBackwards", CoordinatorStatefulHarness::offsetsNeverGoBackwards)
                .withInvariant("noTwoConsumersStartedWithTheSamePartitionInOneGeneration",
                        CoordinatorStatefulHarness::noTwoConsumersStartedWithTheSamePartitionInOneGeneration)
                .withInvariant("startOnlyAfterStopOfTheSameMember",
                        CoordinatorStatefulHarness::startOnlyAfterStopOfTheSameMember)
                .withInvariant("coordinatorStaysActiveAndFenced",
                        CoordinatorStatefulHarness::coordinatorStaysActiveAndFenced)
                .withInvariant("quiescedGroupIsStableAndMatchesTheModel",
                        CoordinatorStatefulHarness::quiescedGroupIsStableAndMatchesTheModel);
    }

    /**
     * The shortest script the retried-commits property found, kept as a regression test. Commits 1, 2, 3 of one
     * partition: 1 is in flight, 2 and 3 compact to 3 in the queue; once 1 commits, 3 is in flight, and the retried
     * 2 is above the mirror's 1. Compared with the mirror alone it was queued and written after 3, so ZooKeeper went
     * 1, 3, 2 while the mirror kept 3 (FencedWrites: a committed offset never decreases); the floor must include
     * the offsets in flight and queued.
     */
    @Test
    void aRetriedCommitBehindAHigherOneInFlightDoesNotMoveTheOffsetBack() {
        String failure = replay(EnumSet.noneOf(Defect.class), List.of(
                new CoordinatorStatefulSteps.Register("c0", new TreeMap<>(java.util.Map.of("a", 1)), 300, (short) 2, true),
                new CoordinatorStatefulSteps.Settle(),
                new CoordinatorStatefulSteps.CommitOffset("c0", true, 0, 1),
                new CoordinatorStatefulSteps.CommitOffset("c0", true, 0, 1),
                new CoordinatorStatefulSteps.CommitOffset("c0", true, 0, 1),
                new CoordinatorStatefulSteps.Deliver(1),
                new CoordinatorStatefulSteps.RepeatCommit("c0", 1),
                new CoordinatorStatefulSteps.DeliverAll()));
        assertEquals(null, failure);
    }

    /** Runs a script with every invariant after every step; null when all held, else the first violation. */
    private static String replay(Set<Defect> defects, List<Step> script) {
        CoordinatorStatefulHarness h = CoordinatorStatefulHarness.elected(defects);
        List<Step> done = new ArrayList<>();
        try {
            for (Step step : script) {
                done.add(step);
                step.apply(h);
                h.checkAll();
            }
            return null;
        } catch (AssertionError e) {
            return e.getMessage() + "\n  script: " + done;
        }
    }

    // ------------------------------------------------------------------ seeded runs: the negative control

    private static final int RUNS = 300;
    private static final int STEPS = 30;

    /**
     * The same seeded scripts against the correct coordinator and against one that drops triggers arriving during
     * a run (D1): the first must keep every invariant, the second must leave a member unstarted that the quiesced
     * check catches. Running both on the same scripts shows the failures come from the defect, not the harness.
     */
    @Test
    void droppedTriggersAreCaughtByTheQuiescedCheck() {
        Random random = new Random(20_260_312L);
        TreeMap<String, Integer> failuresByInvariant = new TreeMap<>();
        for (int run = 0; run < RUNS; run++) {
            long seed = random.nextLong();
            String correct = runScript(seed, EnumSet.noneOf(Defect.class));
            assertEquals(null, correct, "the correct coordinator failed script " + seed);
            String broken = runScript(seed, EnumSet.of(Defect.DROP_TRIGGERS));
            if (broken != null) {
                String invariant = broken.substring(0, broken.indexOf(' '));
                failuresByInvariant.merge(invariant, 1, Integer::sum);
            }
        }
        assertTrue(failuresByInvariant.getOrDefault("quiescedGroupIsStableAndMatchesTheModel", 0) > 0,
                "DROP_TRIGGERS went unnoticed in " + RUNS + " scripts; failures: " + failuresByInvariant);
    }

    /** Runs one seeded script; null when every invariant held, else the first violation (invariant name first). */
    private static String runScript(long seed, Set<Defect> defects) {
        Random random = new Random(seed);
        CoordinatorStatefulHarness h = CoordinatorStatefulHarness.elected(defects);
        List<Step> script = new ArrayList<>();
        try {
            for (int i = 0; i < STEPS; i++) {
                Step step = CoordinatorStatefulSteps.next(random, h);
                script.add(step);
                step.apply(h);
                h.checkAll();
            }
            Step settle = new CoordinatorStatefulSteps.Settle();
            script.add(settle);
            settle.apply(h);
            h.checkAll();
            return null;
        } catch (AssertionError e) {
            return e.getMessage() + "\n  script: " + script;
        }
    }
}
