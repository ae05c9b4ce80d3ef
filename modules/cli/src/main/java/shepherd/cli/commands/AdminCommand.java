package shepherd.cli.commands;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import shepherd.broker.BrokerConfig;
import shepherd.broker.InvalidConfigException;
import shepherd.cli.Logging;
import shepherd.cli.admin.AdminException;
import shepherd.cli.admin.ZkAdmin;

/**
 * What every command of this package shares: {@code --verbose}, the log level ({@link Logging}), and the error
 * rule of the command line — an error is one line on standard error naming the offending value, with exit code
 * {@value #EXIT_USAGE} for a value the command refuses to work with and {@value #EXIT_FAILURE} for a request that
 * failed or was refused; a stack trace only with {@code --verbose}.
 *
 * <p>picocli's own parse errors (an unknown option, a missing required one, a malformed number) keep picocli's
 * handling: exit code 2, the message naming the value, then the usage.
 */
abstract class AdminCommand implements Callable<Integer> {
    /** The command did what was asked. */
    static final int EXIT_OK = 0;
    /** It failed, or refused what was asked (the message says why). */
    static final int EXIT_FAILURE = 1;
    /** A value given to it is not acceptable (picocli's code for usage errors). */
    static final int EXIT_USAGE = 2;

    @Option(names = "--verbose",
            description = "Log at INFO to standard error, and print the stack trace of an error.")
    boolean verbose;

    @Spec
    CommandSpec spec;

    /** The root log level without {@code --verbose}: WARN, so that standard error stays quiet. */
    String defaultLogLevel() {
        return "WARN";
    }

    /** The command's work; throw {@link UsageException} or {@link AdminException} to fail with one line. */
    abstract int execute() throws Exception;

    @Override
    public final Integer call() {
        Logging.configure(verbose, defaultLogLevel());
        try {
            return execute();
        } catch (UsageException e) {
            return fail(EXIT_USAGE, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail(EXIT_FAILURE, e);
        } catch (Exception e) {
            return fail(EXIT_FAILURE, e);
        } finally {
            out().flush();
        }
    }

    private int fail(int code, Exception e) {
        PrintWriter err = err();
        String message = e.getMessage() == null || e.getMessage().isBlank() ? e.toString() : e.getMessage();
        err.println(spec.qualifiedName() + ": " + message.replace('\n', ' '));
        if (verbose) {
            e.printStackTrace(err);
        }
        err.flush();
        return code;
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /**
     * Opens an admin handle on {@code connect} ({@code host:port[,...][/chroot]}), checked as the broker checks
     * {@code zookeeper.connect}; the chroot must exist.
     */
    static ZkAdmin openZooKeeper(String connect) {
        requireConnectString(connect);
        return ZkAdmin.openExisting(connect);
    }

    static void requireConnectString(String connect) {
        try {
            BrokerConfig.defaults(0, connect);
        } catch (InvalidConfigException e) {
            throw new UsageException("--zookeeper: " + e.getMessage());
        }
    }

    /** A value the command refuses: exit code {@value #EXIT_USAGE}, the message on one line. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }
}
