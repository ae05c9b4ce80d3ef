package shepherd.benchmarks.e2e;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import shepherd.coordination.assign.Assignors;

/**
 * {@link RebalanceBench}'s command line, parsed; a bad value is an {@link IllegalArgumentException} naming its
 * option.
 */
record RebalanceOptions(int reps, int warmup, List<Integer> sizes, List<Integer> partitionCounts, int pingIntervalMs,
                       int maxPingRetries, String assignor, boolean ownZooKeeperJvm, List<String> zookeeperJvmOptions,
                       boolean zookeeperFsync, int cpuHogs, Path out, String commandLine) {
    RebalanceOptions {
        if (cpuHogs < 0) {
            throw new IllegalArgumentException("--cpu-hogs must be 0 or more, got " + cpuHogs);
        }
        for (String option : zookeeperJvmOptions) {
            if (!option.startsWith("-")) {
                throw new IllegalArgumentException("--zookeeper-jvm-options takes JVM options, each beginning"
                        + " with '-', got '" + option + "'");
            }
        }
        if (!zookeeperJvmOptions.isEmpty() && !ownZooKeeperJvm) {
            throw new IllegalArgumentException("--zookeeper-jvm-options needs ZooKeeper in a JVM of its own"
                    + " (--zookeeper-jvm own); with --zookeeper-jvm shared, give this JVM the options");
        }
    }

    static RebalanceOptions parse(Report.Args args) {
        boolean quick = args.flag("quick");
        return new RebalanceOptions(args.integer("reps", quick ? 3 : 20), args.integer("warmup", quick ? 3 : 30),
                args.integers("consumers", quick ? "4" : "4,16,64"),
                args.integers("partitions", quick ? "64" : "64,1024"), args.integer("ping-interval-ms", 200),
                args.integer("max-ping-retries", 2), args.string("assignor", Assignors.DEFAULT_NAME),
                args.choice("zookeeper-jvm", "own", "shared").equals("own"),
                Arrays.stream(args.string("zookeeper-jvm-options", "").trim().split("\\s+"))
                        .filter(option -> !option.isEmpty()).toList(),
                args.choice("zookeeper-fsync", "on", "off").equals("on"), args.integer("cpu-hogs", 0),
                args.out(), args.commandLine(RebalanceBench.class.getName()));
    }
}
