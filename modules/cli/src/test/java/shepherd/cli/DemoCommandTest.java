package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import shepherd.cli.demo.DemoCommand;

/** The demo's options: durations as people write them, and bad values refused as usage errors (exit code 2). */
class DemoCommandTest {

    private static Duration duration(String text) {
        return new CommandLine(new DemoCommand()).parseArgs("--duration", text)
                .matchedOptionValue("--duration", Duration.ZERO);
    }

    @Test
    void durationsTakeSecondsMinutesCombinationsAndPlainSeconds() {
        assertEquals(Duration.ofSeconds(20), duration("20s"));
        assertEquals(Duration.ofMinutes(2), duration("2m"));
        assertEquals(Duration.ofSeconds(90), duration("1m30s"));
        assertEquals(Duration.ofSeconds(45), duration("45"));
    }

    @Test
    void badValuesAreUsageErrorsNamingTheOption() {
        for (String[] args : new String[][] {{"--duration", "2x"}, {"--duration", "s"}, {"--duration", "5s"},
                {"--duration", "2h"}, {"--consumers", "0"}, {"--partitions", "17"}}) {
            StringWriter err = new StringWriter();
            CommandLine line = new CommandLine(new DemoCommand());
            line.setErr(new PrintWriter(err));
            assertEquals(2, line.execute(args), String.join(" ", args));
            assertTrue(err.toString().contains(args[0]), err.toString());
        }
    }

    @Test
    void helpDescribesEveryOption() {
        StringWriter out = new StringWriter();
        CommandLine line = new CommandLine(new DemoCommand());
        line.setOut(new PrintWriter(out));
        assertEquals(0, line.execute("--help"));
        for (String option : new String[] {"--duration", "--consumers", "--partitions", "--seed", "--plain",
                "--verbose"}) {
            assertTrue(out.toString().contains(option), out.toString());
        }
    }
}
