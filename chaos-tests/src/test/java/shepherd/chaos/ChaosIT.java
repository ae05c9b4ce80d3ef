package shepherd.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import shepherd.chaos.cluster.ChaosCluster;
import shepherd.chaos.nemesis.Nemeses;
import shepherd.chaos.nemesis.Nemeses.Phase;
import shepherd.chaos.nemesis.Nemesis;
import shepherd.chaos.run.ChaosRun;
import shepherd.chaos.run.Report;

/**
 * The chaos suite of CI (DESIGN §8): every nemesis at least once, grouped into runs of related faults, each run a
 * fresh cluster of real processes behind a real Toxiproxy. Each run writes {@code target/chaos/<run>/report.md}
 * and {@code history.jsonl}; a run passes when its checkers find no violation. The negative control runs nemesis 2
 * against brokers with fencing disabled and asserts that the checkers catch it.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES) // a hung run fails alone; a normal one takes under 3
class ChaosIT {
    private static final Path RUNS = Path.of("target", "chaos").toAbsolutePath();
    /** The checkers over the merged history (the nemeses' own expectations aside). */
    private static final java.util.Set<String> HISTORY_CHECKERS = java.util.Set.of("ExclusiveOwnership",
            "NoStaleCommandApplied", "FencedWrites", "OneCoordinatorPerEpoch", "NoLostRecords", "Convergence");
    private static final long SEED = Long.getLong("chaos.seed", 20261203L);

    @Test
    void coordinatorZooKeeperFaults() throws Exception {
        assertNoViolation(run("coordinator-zookeeper", ChaosCluster.Settings.defaults(), List.of(
                Nemeses.coordinatorZkPartition(Phase.IDLE),
                Nemeses.shortDisconnect(),
                Nemeses.coordinatorZkPartition(Phase.STOP),
                Nemeses.coordinatorZkPartition(Phase.START),
                Nemeses.coordinatorZkPartition(Phase.WRITE),
                Nemeses.zkLinkResets(false),
                Nemeses.zkLinkResets(true),
                Nemeses.backToBackExpiries())));
    }

    @Test
    void processFaults() throws Exception {
        assertNoViolation(run("processes", ChaosCluster.Settings.defaults(), List.of(
                Nemeses.pauseCoordinator(),
                Nemeses.killCoordinator(),
                Nemeses.killRandomBroker(),
                Nemeses.pauseConsumer(),
                Nemeses.isolateConsumer(true),
                Nemeses.isolateConsumer(false))));
    }

    @Test
    void zooKeeperEnsembleFaults() throws Exception {
        assertNoViolation(run("zookeeper-ensemble", ChaosCluster.Settings.defaults(), List.of(
                Nemeses.killZkLeader(),
                Nemeses.isolateZkNode())));
    }

    @Test
    void membershipChurnAndPartitionAdditions() throws Exception {
        assertNoViolation(run("churn", ChaosCluster.Settings.defaults(), List.of(
                Nemeses.churn(),
                Nemeses.churn())));
    }

    /** CONVENTIONS 13: with fencing off, the paused zombie coordinator of nemesis 2 must be caught. */
    @Test
    void withoutFencingThePausedCoordinatorIsCaught() throws Exception {
        Report.Result result = run("negative-control-fencing-off",
                ChaosCluster.Settings.defaults().withFencingDisabled(), List.of(Nemeses.pauseCoordinator()));
        assertTrue(result.violations().stream().anyMatch(v -> HISTORY_CHECKERS.contains(v.invariant())),
                "fencing was off, yet no history checker saw anything:\n" + result.text());
    }

    /**
     * CONVENTIONS 13: the self-fence check must catch a consumer that fetches on through the window in which a
     * consumer cut off from its coordinator must have stopped. Judged on a consumer left alone, it must.
     */
    @Test
    void aConsumerThatFetchesOnIsCaughtBySelfFenceCheck() throws Exception {
        Report.Result result = run("negative-control-self-fence", ChaosCluster.Settings.defaults(),
                List.of(Nemeses.judgeAConsumerLeftAlone()));
        assertTrue(result.violations().stream().anyMatch(v -> v.invariant().equals("ConsumerSelfFences")),
                "a consumer fetched on through the window, yet ConsumerSelfFences saw nothing:\n" + result.text());
    }

    private static Report.Result run(String name, ChaosCluster.Settings settings, List<Nemesis> nemeses)
            throws Exception {
        try (ChaosRun run = ChaosRun.start(name, RUNS.resolve(name), settings, SEED)) {
            for (Nemesis n : nemeses) {
                run.apply(n);
            }
            return run.finish();
        }
    }

    private static void assertNoViolation(Report.Result result) {
        assertEquals(List.of(), result.violations(), "see " + result.report() + "\n" + result.text());
        assertTrue(result.text().contains("## Faults"), result.text());
    }
}
