package shepherd.cli.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code shepherd demo}: a whole cluster in this process, two consumer groups, and a script of failures, shown live
 * and checked at the end. The options only; {@link DemoRun} does the work.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs an embedded ZooKeeper, three brokers and two consumer groups in this process, then joins, removes,"
                    + " kills consumers, adds partitions, kills the coordinator and expires a ZooKeeper session,"
                    + " showing who coordinates, who holds which partition and how long each rebalance takes.",
            "Ends with a summary and checks: no record lost, no partition delivered by two consumers in one"
                    + " generation, exactly one coordinator. Exit code 0 if they hold, 1 if one fails."
        })
public final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--duration", defaultValue = "60s", converter = DurationConverter.class,
            description = "How long the scripted part runs (producer on, events spread over it): 20s, 2m or plain"
                    + " seconds; at least 10s. A drain phase follows. Default: ${DEFAULT-VALUE}.")
    Duration duration;

    @Option(names = "--consumers", defaultValue = "3",
            description = "Consumers per group at the start (1-" + DemoOptions.CONSUMERS_MAX
                    + "). Default: ${DEFAULT-VALUE}.")
    int consumers;

    @Option(names = "--partitions", defaultValue = "4",
            description = "Partitions per broker of the topic (1-" + DemoOptions.PARTITIONS_MAX
                    + "); three brokers, so three times as many in all. Default: ${DEFAULT-VALUE}.")
    int partitions;

    @Option(names = "--seed",
            description = "Seed of the random choices (which consumer leaves or is killed, timing jitter). Printed"
                    + " at the start so a run can be repeated. Default: random.")
    Long seed;

    @Option(names = "--plain",
            description = "Plain log-style lines, no ANSI (for CI and logs). Automatic when there is no console.")
    boolean plain;

    @Option(names = "--verbose",
            description = "Show the brokers' and consumers' INFO logs (on standard error). Default: WARN and above.")
    boolean verbose;

    @Override
    public Integer call() {
        DemoOptions options;
        try {
            options = new DemoOptions(duration, consumers, partitions,
                    seed != null ? seed : System.nanoTime() & 0xFFFF_FFFFL, plain || System.console() == null);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        // Before anything creates a logger: logback.xml and slf4j-simple read these once, at their first logger.
        QuietLogs.apply(verbose);
        return run(options, System.out);
    }

    /**
     * Runs the demo without the {@code shepherd} launcher, e.g. {@code java -m shepherd.cli/shepherd.cli.demo.DemoCommand}
     * in the image.
     */
    public static void main(String[] args) {
        System.exit(new picocli.CommandLine(new DemoCommand()).execute(args));
    }

    /** Runs the demo with a shutdown hook that tears everything down on Ctrl-C. */
    static int run(DemoOptions options, PrintStream out) {
        DemoRun demo = new DemoRun(options, out);
        Thread hook = new Thread(demo::abort, "shepherd-demo-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return demo.run();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: the hook is running or has run
            }
        }
    }
}
