package shepherd.benchmarks.e2e;

import java.util.function.Supplier;

/**
 * Waits until the ZooKeeper server has seen no request for a while, so a repetition's count holds everything it
 * caused (the coordinator re-reads a group after each member change it writes) and nothing of the next one.
 */
final class ZkQuiet {
    private static final long QUIET_WINDOW_MS = 40;
    private static final long QUIET_MAX_MS = 5_000;
    private final String zk;
    private final Supplier<ChildZooKeeper.Work> serverWork;
    private final RunQueue runQueue;
    private final long probeCost;

    /**
     * {@code serverWork}: the pauses and compilations of the server's JVM so far, when it is not this one (else
     * none); {@code runQueue}: the waits for a core of this JVM's threads and the server's.
     */
    ZkQuiet(String zk, Supplier<ChildZooKeeper.Work> serverWork, RunQueue runQueue) {
        this.zk = zk;
        this.serverWork = serverWork;
        this.runQueue = runQueue;
        ZkCounters a = ZkCounters.read(zk);
        ZkCounters b = ZkCounters.read(zk);
        this.probeCost = b.minus(a).packetsReceived(); // what reading the counters itself adds
    }

    long probeCost() {
        return probeCost;
    }

    ZkCounters counters() {
        return ZkCounters.read(zk);
    }

    ChildZooKeeper.Work serverWork() {
        return serverWork.get();
    }

    RunQueue runQueue() {
        return runQueue;
    }

    void await() throws InterruptedException {
        long deadline = System.currentTimeMillis() + QUIET_MAX_MS;
        ZkCounters last = counters();
        while (System.currentTimeMillis() < deadline) {
            Thread.sleep(QUIET_WINDOW_MS); // a window with no traffic is the condition, checked by counting
            ZkCounters now = counters();
            ZkCounters d = now.minus(last);
            if (d.zxid() == 0 && d.packetsReceived() <= probeCost) {
                return;
            }
            last = now;
        }
    }
}
