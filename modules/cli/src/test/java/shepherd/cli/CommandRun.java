package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** One run of a command object as {@code Main} would run it, with its standard output and error captured. */
record CommandRun(int exitCode, String out, String err) {

    static CommandRun run(Object command, String... args) {
        CommandLine line = new CommandLine(command);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        int code = line.execute(args);
        return new CommandRun(code, out.toString(), err.toString());
    }

    /** Asserts a failure with {@code exitCode}: exactly one line on standard error, no stack trace. */
    CommandRun assertOneLineError(int expectedExitCode) {
        assertEquals(expectedExitCode, exitCode, this::toString);
        assertEquals(1, err.lines().count(), () -> "one error line expected: " + this);
        assertFalse(err.contains("\tat "), () -> "no stack trace without --verbose: " + this);
        return this;
    }

    CommandRun assertOk() {
        assertEquals(0, exitCode, this::toString);
        return this;
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out:\n" + out + "--- err:\n" + err;
    }
}
