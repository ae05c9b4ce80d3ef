package shepherd.zookeeper;

import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import shepherd.coordination.CoordinatorEffect;

/**
 * Executes the coordinator core's effects, each at its destination — ZooKeeper, the consumers' connections, the
 * timers, or the observers (logs, metrics, checkers) — in the order the core listed them: a read listed after a write
 * must reach ZooKeeper after it, and a Start after the owners write it follows. The broker's event loop and the
 * simulation's brokers route through this one class, so the simulation executes effects as a broker does; each
 * runtime supplies only its sinks.
 */
public final class EffectRouter {
    private final Consumer<CoordinatorEffect.ZooKeeper> zooKeeper;
    private final Consumer<CoordinatorEffect.Network> network;
    private final Consumer<CoordinatorEffect.Timer> timers;
    private final Consumer<CoordinatorEffect.Observation> observations;

    /** @param zooKeeper where ZooKeeper effects go: the adapter's {@link ZooKeeperAdapter#execute}, or a test's */
    public EffectRouter(Consumer<CoordinatorEffect.ZooKeeper> zooKeeper, Consumer<CoordinatorEffect.Network> network,
                        Consumer<CoordinatorEffect.Timer> timers,
                        Consumer<CoordinatorEffect.Observation> observations) {
        this.zooKeeper = Objects.requireNonNull(zooKeeper, "zooKeeper");
        this.network = Objects.requireNonNull(network, "network");
        this.timers = Objects.requireNonNull(timers, "timers");
        this.observations = Objects.requireNonNull(observations, "observations");
    }

    /** Executes one step's effects, in list order. */
    public void executeAll(List<CoordinatorEffect> effects) {
        for (CoordinatorEffect effect : effects) {
            execute(effect);
        }
    }

    public void execute(CoordinatorEffect effect) {
        if (effect instanceof CoordinatorEffect.ZooKeeper z) {
            zooKeeper.accept(z);
        } else if (effect instanceof CoordinatorEffect.Network n) {
            network.accept(n);
        } else if (effect instanceof CoordinatorEffect.Timer t) {
            timers.accept(t);
        } else if (effect instanceof CoordinatorEffect.Observation o) {
            observations.accept(o);
        } else {
            throw new IllegalStateException("an effect of no destination: " + effect);
        }
    }
}
