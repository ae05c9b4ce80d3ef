package shepherd.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The harnesses' options: defaults, and a bad value named with its option instead of a bare parse error. */
class ReportArgsTest {

    @Test
    void choiceDefaultsToTheFirstAndNamesTheChoicesOfABadValue() {
        assertEquals("shared", new Report.Args(new String[0]).choice("zookeeper-jvm", "shared", "own"));
        assertEquals("own", new Report.Args(new String[] {"--zookeeper-jvm", "own"})
                .choice("zookeeper-jvm", "shared", "own"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Report.Args(new String[] {"--zookeeper-jvm", "mine"}).choice("zookeeper-jvm", "shared",
                        "own"));
        assertEquals("--zookeeper-jvm must be one of shared, own, got 'mine'", e.getMessage());
    }

    @Test
    void rebalanceBenchRunsZooKeeperInAJvmOfItsOwnUnlessToldToShare() {
        assertTrue(RebalanceOptions.parse(new Report.Args(new String[0])).ownZooKeeperJvm());
        assertFalse(RebalanceOptions.parse(new Report.Args(new String[] {"--zookeeper-jvm", "shared"}))
                .ownZooKeeperJvm());
    }

    @Test
    void rebalanceBenchKeepsZooKeepersFsyncUnlessToldOtherwise() {
        assertTrue(RebalanceOptions.parse(new Report.Args(new String[0])).zookeeperFsync());
        assertFalse(RebalanceOptions.parse(new Report.Args(new String[] {"--zookeeper-fsync", "off"}))
                .zookeeperFsync());
        assertEquals("--zookeeper-fsync must be one of on, off, got 'no'", assertThrows(IllegalArgumentException.class,
                () -> RebalanceOptions.parse(new Report.Args(new String[] {"--zookeeper-fsync", "no"})))
                .getMessage());
    }

    @Test
    void rebalanceBenchLoadsTheMachineOnlyWhenAsked() {
        assertEquals(0, RebalanceOptions.parse(new Report.Args(new String[0])).cpuHogs());
        assertEquals(2, RebalanceOptions.parse(new Report.Args(new String[] {"--cpu-hogs", "2"})).cpuHogs());
        assertEquals("--cpu-hogs must be 0 or more, got -1", assertThrows(IllegalArgumentException.class,
                () -> RebalanceOptions.parse(new Report.Args(new String[] {"--cpu-hogs", "-1"}))).getMessage());
    }

    @Test
    void rebalanceBenchGivesZooKeepersJvmOptionsOnlyWhenAskedAndOnlyToAJvmOfItsOwn() {
        assertEquals(List.of(), RebalanceOptions.parse(new Report.Args(new String[0])).zookeeperJvmOptions());
        Report.Args args = new Report.Args(new String[] {"--zookeeper-jvm-options", " -XX:+UseZGC  -Xmx1g "});
        RebalanceOptions o = RebalanceOptions.parse(args);
        assertEquals(List.of("-XX:+UseZGC", "-Xmx1g"), o.zookeeperJvmOptions());
        assertEquals(java() + " -cp modules/benchmarks/target/benchmarks.jar " + RebalanceBench.class.getName()
                + " --zookeeper-jvm-options ' -XX:+UseZGC  -Xmx1g '", o.commandLine(),
                "a value with blanks is quoted, so the recorded command can be pasted back");
        assertEquals("--zookeeper-jvm-options takes JVM options, each beginning with '-', got 'UseZGC'",
                assertThrows(IllegalArgumentException.class, () -> RebalanceOptions.parse(new Report.Args(
                        new String[] {"--zookeeper-jvm-options", "-Xmx1g UseZGC"}))).getMessage());
        assertEquals("--zookeeper-jvm-options needs ZooKeeper in a JVM of its own (--zookeeper-jvm own); with"
                + " --zookeeper-jvm shared, give this JVM the options", assertThrows(IllegalArgumentException.class,
                        () -> RebalanceOptions.parse(new Report.Args(new String[] {"--zookeeper-jvm", "shared",
                                "--zookeeper-jvm-options", "-XX:+UseZGC"}))).getMessage());
    }

    @Test
    void zkRetainedBenchWritesEnoughToFillZooKeepersLogOfRecentTransactions() {
        ZkRetainedBench.Options o = ZkRetainedBench.Options.parse(new Report.Args(new String[0]));
        assertEquals(List.of(64, 1024, 16384), o.partitions());
        assertEquals(600, o.writes());
        assertEquals("--writes must be more than 500 (ZooKeeper's log of recent transactions must be full), got 500",
                assertThrows(IllegalArgumentException.class, () -> ZkRetainedBench.Options.parse(
                        new Report.Args(new String[] {"--writes", "500"}))).getMessage());
    }

    @Test
    void anOptionNoHarnessAskedForIsAnErrorNamingIt() {
        Report.Args args = new Report.Args(new String[] {"--quick", "--reps", "3", "--zookeeper-fsnyc", "off"});
        args.flag("quick");
        args.integer("reps", 20);
        args.choice("zookeeper-fsync", "on", "off");
        assertEquals("unknown option --zookeeper-fsnyc; this harness takes --quick, --reps, --zookeeper-fsync",
                assertThrows(IllegalArgumentException.class, () -> args.commandLine("X")).getMessage());

        Report.Args stray = new Report.Args(new String[] {"--reps", "3", "4"});
        stray.integer("reps", 20);
        assertEquals("unexpected argument '4': options are --name value",
                assertThrows(IllegalArgumentException.class, () -> stray.commandLine("X")).getMessage());

        Report.Args good = new Report.Args(new String[] {"--quick", "--reps", "3"});
        good.flag("quick");
        good.integer("reps", 20);
        assertEquals(java() + " -cp modules/benchmarks/target/benchmarks.jar X --quick --reps 3",
                good.commandLine("X"));
        assertEquals("unknown option --zookeeper-fsnyc; this harness takes --quick, --reps, --warmup, --consumers,"
                + " --partitions, --ping-interval-ms, --max-ping-retries, --assignor, --zookeeper-jvm,"
                + " --zookeeper-jvm-options, --zookeeper-fsync, --cpu-hogs, --out", assertThrows(IllegalArgumentException.class,
                        () -> RebalanceOptions.parse(new Report.Args(new String[] {"--zookeeper-fsnyc", "off"})))
                .getMessage());
    }

    /** The recorded command starts the same JVM: the options that change a measurement, and no file of this machine. */
    @Test
    void theCommandKeepsTheJvmsMeasuringOptionsAndDropsItsFiles() {
        assertEquals(List.of("-XX:+UseZGC", "-Xmx2g", "-Xss512k"), Report.Args.jvmOptions(List.of("-XX:+UseZGC",
                "-Xmx2g", "-Dfoo=bar", "-Xlog:gc:file=/tmp/gc.log", "-XX:HeapDumpPath=/tmp/dumps", "-Xss512k",
                "-javaagent:/opt/agent.jar", "-ea")));
    }

    private static String java() {
        List<String> options = Report.Args.jvmOptions(
                java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
        return options.isEmpty() ? "java" : "java " + String.join(" ", options);
    }

    @Test
    void theMachineLineNamesTheProcessor() {
        String cpu = Report.cpuModel();
        assertFalse(cpu.isBlank());
        assertTrue(Report.machine().contains(cpu), Report.machine());
        assertTrue(Report.machine().contains("collector: " + Gc.collector()), Report.machine());
    }

    @Test
    void integersNameTheirOptionWhenTheyDoNotParse() {
        Report.Args args = new Report.Args(new String[] {"--reps", "twenty", "--consumers", "4,x"});
        assertEquals("--reps takes an integer, got 'twenty'",
                assertThrows(IllegalArgumentException.class, () -> args.integer("reps", 20)).getMessage());
        assertEquals("--consumers takes an integer, got 'x'",
                assertThrows(IllegalArgumentException.class, () -> args.integers("consumers", "4")).getMessage());
        assertEquals(List.of(4, 16), new Report.Args(new String[] {"--consumers", "4, 16"}).integers("consumers", "4"));
        assertEquals(20, new Report.Args(new String[0]).integer("reps", 20));
    }
}
