package shepherd.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

class SimZooKeeperPropertiesTest {
    /**
     * Under any seed: callbacks come back in issue order, each request gets exactly one, and no ephemeral outlives
     * its session (checked inside {@link SimZkChaos}).
     */
    @Property(tries = 25)
    void randomFaultsNeverBreakFifoCallbacksOrEphemeralLifetimes(@ForAll long seed) {
        SimZkChaos.run(seed, 5_000);
    }

    @Property(tries = 10)
    void aRunIsAFunctionOfItsSeed(@ForAll long seed) {
        List<String> first = SimZkChaos.run(seed, 3_000).trace();
        assertEquals(first, SimZkChaos.run(seed, 3_000).trace());
    }
}
