package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import shepherd.cli.demo.DemoCommand;

/**
 * {@code shepherd demo} end to end, in this process, as CI runs it: a short plain run with a fixed seed must go
 * through every scripted event (join, leave, kill, partitions added, coordinator killed, session expired) and end
 * with every invariant holding.
 */
class DemoIT {

    @Test
    void aShortPlainDemoRunsEveryEventAndEveryInvariantHolds() {
        PrintStream original = System.out;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream tee = new PrintStream(new TeeStream(buffer, original), true, StandardCharsets.UTF_8);
        System.setOut(tee);
        int exit;
        try {
            exit = new CommandLine(new DemoCommand()).execute("--duration", "20s", "--plain", "--seed", "1");
        } finally {
            System.setOut(original);
        }
        String out = buffer.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, out);
        for (String expected : new String[] {"seed 1", "joins group", "leaves (shutdown", "is killed (halt",
                "now holds", "coordinator broker", "expires session", "failover broker", "== summary",
                "[ok]     no record lost", "[ok]     no (partition, generation) delivered by two consumers",
                "[ok]     exactly one coordinator at the end", "result: every invariant holds (exit code 0)"}) {
            assertTrue(out.contains(expected), "missing '" + expected + "' in:\n" + out);
        }
        assertTrue(!out.contains("\033["), "plain output carries no ANSI escapes");
    }

    /** Keeps the output visible in the test log while capturing it. */
    private static final class TeeStream extends java.io.OutputStream {
        private final java.io.OutputStream a;
        private final java.io.OutputStream b;

        TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int x) throws java.io.IOException {
            a.write(x);
            b.write(x);
        }

        @Override
        public void write(byte[] buf, int off, int len) throws java.io.IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }
    }
}
