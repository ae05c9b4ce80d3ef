package shepherd.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import shepherd.simulation.Simulation.Faults;
import shepherd.simulation.Simulation.Mode;
import shepherd.simulation.Simulation.Result;

/**
 * The default run of the simulation: at least 2,000 seeds in each mode (DESIGN §7, CONVENTIONS 12). A failure names
 * its seed and prints the end of its trace; {@code -Dshepherd.sim.seeds=N} runs more, {@code -Dshepherd.sim.from=S}
 * starts elsewhere.
 */
class SimulationTest {
    static final long FROM = Long.getLong("shepherd.sim.from", 1);
    static final int SEEDS = Integer.getInteger("shepherd.sim.seeds", 2_000);

    @Test
    void safetyHoldsUnderEveryFault() {
        runMany(Mode.SAFETY, Faults.ALL, FROM, SEEDS);
    }

    @Test
    void safetyHoldsWhenTheCoordinatorLosesZooKeeper() {
        runMany(Mode.SAFETY, Faults.ZOMBIE_COORDINATOR, FROM + 1_000_000, SEEDS / 4);
    }

    @Test
    void everyGroupConvergesAfterHealing() {
        runMany(Mode.LIVENESS, Faults.ALL, FROM, SEEDS);
    }

    @Test
    void everyGroupConvergesAfterTheCoordinatorLostZooKeeper() {
        runMany(Mode.LIVENESS, Faults.ZOMBIE_COORDINATOR, FROM + 1_000_000, SEEDS / 4);
    }

    /**
     * Seeds that found bugs; each comment says which. With the simulation running the real ZooKeeper adapter these
     * fail when a write the core listed under its epoch is sent on the broker's next ZooKeeper session: it passes
     * the epoch check while no other broker has won, and lands from a session that never held the epoch
     * (FencedWrites).
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {
        738,  // the session expired while its coordinator's write was queued; the write landed from the next one
        1733, // the same for a second group, with the broker's new session about to win the next epoch
    })
    void regressionSeedsStayFixed(long seed) {
        for (Mode mode : Mode.values()) {
            Result r = Simulation.run(seed, mode, Set.of());
            assertTrue(r.ok(), () -> Simulation.describe(seed, mode, Set.of()));
        }
    }

    @Test
    void aSeedReproducesTheIdenticalRun() {
        for (long seed = 1; seed <= 20; seed++) {
            Result a = Simulation.run(seed, Mode.LIVENESS, Set.of());
            Result b = Simulation.run(seed, Mode.LIVENESS, Set.of());
            assertEquals(a, b, "seed " + seed);
        }
    }

    static void runMany(Mode mode, Faults faults, long from, int seeds) {
        List<String> failures = new ArrayList<>();
        long events = 0;
        long start = System.nanoTime();
        for (long seed = from; seed < from + seeds; seed++) {
            Result r = Simulation.run(seed, mode, Set.of(), faults);
            events += r.events();
            if (!r.ok()) {
                failures.add("reproduce with seed=" + seed + " (" + mode + ", " + faults + "): " + r.failure().get());
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("simulation %s/%s: %d seeds in %.1f s (%.0f seeds/s, %.0f events/s), %d failed%n", mode,
                faults, seeds, seconds, seeds / seconds, events / seconds, failures.size());
        if (!failures.isEmpty()) {
            long first = Long.parseLong(failures.get(0).replaceAll("reproduce with seed=(\\d+).*", "$1"));
            fail(String.join("\n", failures) + "\n\nfirst failing seed in full:\n"
                    + Simulation.describe(first, mode, Set.of(), faults, null));
        }
    }
}
