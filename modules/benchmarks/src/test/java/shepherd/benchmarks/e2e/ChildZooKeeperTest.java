package shepherd.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
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

    /** What the test below holds, reachable until it drops it. */
    private static volatile Object held;
    /** Its garbage, each stored here until the next: no compiler removes an allocation stored to a volatile. */
    private static volatile Object garbage;

    /**
     * "Live" means held: 32 MiB held count, 64 MiB of garbage do not, and once dropped the held ones count no more.
     * Its negative control: the heap merely in use, without a full collection first, counts the garbage and fails
     * here.
     */
    @Test
    void liveHeapCountsWhatIsHeldAndNotTheGarbage() {
        long base = ChildZooKeeper.ownLiveHeapBytes();
        byte[][] chunks = new byte[32][];
        for (int i = 0; i < chunks.length; i++) {
            chunks[i] = new byte[1 << 20];
        }
        held = chunks;
        chunks = null;
        long holding = ChildZooKeeper.ownLiveHeapBytes() - base;
        for (int i = 0; i < 64; i++) {
            garbage = new byte[1 << 20];
        }
        long withGarbage = ChildZooKeeper.ownLiveHeapBytes() - base;
        garbage = null;
        held = null;
        long dropped = ChildZooKeeper.ownLiveHeapBytes() - base;
        String seen = "live heap over the start: " + holding + " holding 32 MiB, " + withGarbage
                + " after 64 MiB of garbage, " + dropped + " once dropped";
        assertTrue(holding >= 30L << 20, "32 MiB held, not counted: " + seen);
        assertTrue(withGarbage < holding + (8L << 20), "garbage counted: " + seen);
        assertTrue(dropped < 8L << 20, "32 MiB dropped, still counted: " + seen);
    }

    /** The child answers LIVE, and what its server keeps is in the answer: 4 MiB of node values, at least. */
    @Test
    void theChildReportsItsLiveHeapAndItHoldsWhatTheServerKeeps() throws Exception {
        try (ChildZooKeeper child = ChildZooKeeper.start(200, true, List.of())) {
            ZooKeeper zk = ZkMultiBench.connect(child.connectString());
            try {
                long before = child.liveHeapBytes();
                long idle = child.liveHeapBytes() - before;
                List<Op> creates = new ArrayList<>();
                for (int i = 0; i < 64; i++) {
                    creates.add(Op.create("/n" + i, new byte[64 * 1024], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
                    if (creates.size() == 8) {
                        zk.multi(creates);
                        creates.clear();
                    }
                }
                long grown = child.liveHeapBytes() - before;
                assertTrue(grown >= 4L << 20, "64 values of 64 KiB kept, yet the live heap grew by " + grown);
                assertTrue(idle < 1L << 20, "nothing written, yet the live heap grew by " + idle);
            } finally {
                zk.close();
            }
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
