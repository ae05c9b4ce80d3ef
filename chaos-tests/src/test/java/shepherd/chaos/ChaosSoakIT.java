package shepherd.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import shepherd.chaos.cluster.ChaosCluster;
import shepherd.chaos.nemesis.Nemeses;
import shepherd.chaos.nemesis.Nemeses.Phase;
import shepherd.chaos.nemesis.Nemesis;
import shepherd.chaos.run.ChaosRun;
import shepherd.chaos.run.Report;

/**
 * The long randomized soak (docs/chaos.md): nemeses drawn at random from all ten, one after another, for
 * {@code -Dchaos.soak=<ISO-8601 duration>} (e.g. {@code PT30M}), seeded by {@code -Dchaos.seed}. Off unless asked
 * for; CI runs {@link ChaosIT}.
 */
@EnabledIfSystemProperty(named = "chaos.soak", matches = "P.+")
class ChaosSoakIT {
    private static final List<Supplier<Nemesis>> ALL = List.of(
            () -> Nemeses.coordinatorZkPartition(Phase.IDLE), () -> Nemeses.coordinatorZkPartition(Phase.STOP),
            () -> Nemeses.coordinatorZkPartition(Phase.START), () -> Nemeses.coordinatorZkPartition(Phase.WRITE),
            Nemeses::pauseCoordinator, Nemeses::backToBackExpiries, Nemeses::shortDisconnect,
            () -> Nemeses.isolateConsumer(true), () -> Nemeses.isolateConsumer(false), Nemeses::pauseConsumer,
            () -> Nemeses.zkLinkResets(false), () -> Nemeses.zkLinkResets(true), Nemeses::killZkLeader,
            Nemeses::isolateZkNode, Nemeses::killCoordinator, Nemeses::killRandomBroker, Nemeses::churn);

    @Test
    void randomNemesesForTheWholeSoak() throws Exception {
        Duration soak = Duration.parse(System.getProperty("chaos.soak"));
        long seed = Long.getLong("chaos.seed", System.nanoTime());
        Random pick = new Random(seed);
        long deadline = System.nanoTime() + soak.toNanos();
        Report.Result result;
        try (ChaosRun run = ChaosRun.start("soak", Path.of("target", "chaos", "soak").toAbsolutePath(),
                ChaosCluster.Settings.defaults(), seed)) {
            while (System.nanoTime() < deadline) {
                run.apply(ALL.get(pick.nextInt(ALL.size())).get());
            }
            result = run.finish();
        }
        assertEquals(List.of(), result.violations(), "seed " + seed + ", see " + result.report());
    }
}
