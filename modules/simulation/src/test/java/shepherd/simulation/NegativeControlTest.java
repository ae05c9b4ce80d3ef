package shepherd.simulation;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Set;
import org.junit.jupiter.api.Test;
import shepherd.coordination.defect.Defect;
import shepherd.simulation.Simulation.Faults;
import shepherd.simulation.Simulation.Mode;
import shepherd.simulation.Simulation.Result;
import shepherd.testkit.Invariant;

/**
 * The simulation's checkers are not vacuous (CONVENTIONS 13): with one of the seed's defects put back, a bounded
 * number of seeds must find the violation it causes. Each bound is a few times the seed at which the violation was
 * first found, so the test stays fast and still fails if the checker goes blind.
 */
class NegativeControlTest {

    @Test
    void withoutFencingADeposedCoordinatorRenewsLeasesItNoLongerOwns() {
        // D2/D5: a coordinator cut from ZooKeeper keeps pinging; its consumers keep fetching while the next
        // coordinator, after its lease wait, hands their partitions to others; and its unfenced writes land
        // under the next coordinator's epoch.
        assertFound(Defect.NO_FENCING, Mode.SAFETY, Faults.ZOMBIE_COORDINATOR, 4_000,
                Set.of(Invariant.FencedWrites, Invariant.BarrierSound, Invariant.ExclusiveOwnership));
    }

    @Test
    void withoutTheLeaseWaitANewCoordinatorStartsPartitionsStillFetched() {
        // D4: the new coordinator hands out partitions whose previous owners' leases still run.
        assertFound(Defect.NO_LEASE_WAIT, Mode.SAFETY, Faults.ALL, 4_000,
                Set.of(Invariant.BarrierSound, Invariant.ExclusiveOwnership));
    }

    @Test
    void withTheSeedsTriggerDroppingAGroupNeverConverges() {
        // D1: a change during a run is dropped; the group stays on the run's stale view (NoLostTrigger).
        for (long seed = 1; seed <= 400; seed++) {
            Result r = Simulation.run(seed, Mode.LIVENESS, Set.of(Defect.DROP_TRIGGERS));
            if (!r.ok()) {
                assertTrue(r.failure().get().startsWith("no convergence"), r.failure().get());
                System.out.println("DROP_TRIGGERS caught at seed " + seed + ": " + r.failure().get());
                return;
            }
        }
        fail("400 seeds with the seed's trigger dropping converged every time: the liveness check is blind");
    }

    private static void assertFound(Defect defect, Mode mode, Faults faults, int seeds, Set<Invariant> expected) {
        for (long seed = 1; seed <= seeds; seed++) {
            Result r = Simulation.run(seed, mode, Set.of(defect), faults);
            if (!r.ok()) {
                assertTrue(!r.violations().isEmpty() && expected.contains(r.violations().get(0).invariant()),
                        () -> defect + " at seed " + r.seed() + " failed otherwise than expected: " + r.failure().get());
                System.out.println(defect + " caught at seed " + seed + ": " + r.violations().get(0));
                return;
            }
        }
        fail(seeds + " seeds with " + defect + " found no violation: the checker of " + expected + " is blind");
    }
}
