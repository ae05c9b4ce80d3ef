package shepherd.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The ZooKeeper server in a JVM of its own answers, between two repetitions, how often its collector has paused:
 * the column "ZooKeeper's GC pauses in" is built from these answers.
 */
class ChildZooKeeperTest {

    @Test
    void theChildServesAndReportsItsPausesWhenAsked() {
        try (ChildZooKeeper child = ChildZooKeeper.start(200, true)) {
            assertTrue(child.connectString().startsWith("127.0.0.1:"), child.connectString());
            Gc.Pauses first = child.gcPauses();
            Gc.Pauses second = child.gcPauses();
            assertTrue(first.count() >= 0 && first.ms() >= 0, first.toString());
            assertTrue(second.count() >= first.count() && second.ms() >= first.ms(), first + " then " + second);
            ZkCounters counters = ZkCounters.read(child.connectString()); // it serves: srvr answers
            assertTrue(counters.packetsReceived() >= 0, counters.toString());
        }
    }
}
