package shepherd.chaos.nemesis;

import java.util.Random;
import shepherd.chaos.cluster.ChaosCluster;
import shepherd.chaos.run.Observer;

/** What a nemesis acts on, and where it records what it did. */
public interface FaultContext {
    ChaosCluster cluster();

    /** What the consumers are doing now (their history files, followed). */
    Observer observer();

    /** The run's seeded randomness: a nemesis picks its victims with it. */
    Random random();

    /** Records that the fault is in place now; {@code detail} names its targets. */
    void injected(String detail);

    /** Records that the fault is gone now. */
    void healed(String detail);

    /**
     * Records a violation unless {@code holds}: what the issue says a nemesis must cause (a re-election with a
     * higher epoch, a self-fence, no reset after a short disconnect) is checked where it happens.
     */
    void expect(boolean holds, String invariant, String detail);

    /** Records a fact about the fault worth reporting (e.g. a phase it was aimed at and missed). */
    void note(String detail);
}
