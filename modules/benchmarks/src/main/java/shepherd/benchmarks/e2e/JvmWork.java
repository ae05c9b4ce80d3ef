package shepherd.benchmarks.e2e;

/**
 * The JVMs' own work that can fall into a repetition: this JVM's collector pauses, its JIT compilations (counted
 * when they end) and the pauses and compilations of ZooKeeper's JVM ({@link ZkQuiet#serverWork}); totals, or their
 * growth.
 */
record JvmWork(Gc.Pauses gc, long jitMs, Gc.Pauses zkGc, long zkJitMs) {
    static JvmWork sinceStart(ZkQuiet quiet) {
        ChildZooKeeper.Work server = quiet.serverWork();
        return new JvmWork(Gc.sinceStart(), Jit.totalMs(), server.gc(), server.jitMs());
    }

    JvmWork minus(JvmWork before) {
        return new JvmWork(gc.minus(before.gc), jitMs - before.jitMs, zkGc.minus(before.zkGc),
                zkJitMs - before.zkJitMs);
    }

    /** Compilation milliseconds of both JVMs. */
    long compiledMs() {
        return jitMs + zkJitMs;
    }

    /** Of a growth: neither JVM paused nor finished a compilation. */
    boolean none() {
        return gc.count() == 0 && jitMs == 0 && zkGc.count() == 0 && zkJitMs == 0;
    }
}
