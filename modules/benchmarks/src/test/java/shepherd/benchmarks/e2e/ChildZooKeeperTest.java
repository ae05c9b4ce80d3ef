package shepherd.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The ZooKeeper server in a JVM of its own answers, between two repetitions, how often its collector has paused and
 * how long its compilers have worked: the columns "ZooKeeper's GC pauses in" and "JIT compiling in" are built from
 * these answers.
 */
class ChildZooKeeperTest {

    @Test
    void theChildServesAndReportsItsPausesAndCompilationsWhenAsked() {
        try (ChildZooKeeper child = ChildZooKeeper.start(200, true, List.of())) {
            assertTrue(child.connectString().startsWith("127.0.0.1:"), child.connectString());
            assertEquals(Gc.collector(), child.collector(), "no options: the same defaults as this JVM's");
            ChildZooKeeper.Work first = child.work();
            ChildZooKeeper.Work second = child.work();
            assertTrue(first.gc().count() >= 0 && first.gc().ms() >= 0, first.toString());
            assertTrue(second.gc().count() >= first.gc().count() && second.gc().ms() >= first.gc().ms(),
                    first + " then " + second);
            assertTrue(first.jitMs() > 0, "a JVM that started a server has compiled something: " + first);
            assertTrue(second.jitMs() >= first.jitMs(), first + " then " + second);
            ZkCounters counters = ZkCounters.read(child.connectString()); // it serves: srvr answers
            assertTrue(counters.packetsReceived() >= 0, counters.toString());
        }
    }

    /** The options reach the child's JVM: the collector it names is the one they chose, not this JVM's default. */
    @Test
    void theChildRunsWithTheJvmOptionsItIsGivenAndNamesItsCollector() {
        try (ChildZooKeeper child = ChildZooKeeper.start(200, true, List.of("-XX:+UseSerialGC", "-Xmx256m"))) {
            assertEquals("Copy, MarkSweepCompact", child.collector());
            ZkCounters counters = ZkCounters.read(child.connectString());
            assertTrue(counters.packetsReceived() >= 0, counters.toString());
        }
    }
}
