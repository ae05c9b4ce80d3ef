package shepherd.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import shepherd.cli.commands.BrokerCommand;
import shepherd.cli.commands.GroupsCommand;
import shepherd.cli.commands.OffsetsCommand;
import shepherd.cli.commands.ProduceCommand;
import shepherd.cli.commands.TopicsCommand;
import shepherd.cli.demo.DemoCommand;

/** The {@code shepherd} launcher: parses the command line and runs the chosen command. */
@Command(
        name = "shepherd",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {
            "Shepherd: a consumer-group coordinator for a Kafka-style log, elected through ZooKeeper.",
            "",
            "New here? Run `shepherd demo`: a whole cluster in this process, with faults and a verdict."
        },
        subcommands = {
            DemoCommand.class,
            BrokerCommand.class,
            TopicsCommand.class,
            GroupsCommand.class,
            OffsetsCommand.class,
            ProduceCommand.class
        })
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns the process exit code (for tests and embedding). */
    public static int execute(String... args) {
        return new CommandLine(new Main()).execute(args);
    }

    /** Without a subcommand, say what there is rather than doing nothing silently. */
    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
