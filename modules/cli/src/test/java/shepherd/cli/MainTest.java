package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {

    @Test
    void versionNamesTheBuiltVersion() {
        String out = captureStdout(() -> assertEquals(0, Main.execute("--version")));
        assertTrue(out.startsWith("shepherd " + VersionProvider.version()), out);
        assertTrue(!VersionProvider.version().contains("${"), "version.properties was not filtered");
    }

    @Test
    void noCommandPrintsUsage() {
        String out = captureStdout(() -> assertEquals(0, Main.execute()));
        assertTrue(out.contains("Usage: shepherd"), out);
    }

    @Test
    void usageListsEveryCommand() {
        String out = captureStdout(() -> assertEquals(0, Main.execute("--help")));
        for (String command : java.util.List.of("demo", "broker", "topics", "groups", "offsets", "produce")) {
            assertTrue(out.contains("  " + command + " "), command + " missing from:\n" + out);
        }
    }

    @Test
    void everyCommandHasHelp() {
        for (String command : java.util.List.of("demo", "broker", "topics", "groups", "offsets", "produce")) {
            String out = captureStdout(() -> assertEquals(0, Main.execute(command, "--help")));
            assertTrue(out.contains("Usage: shepherd " + command), out);
        }
    }

    @Test
    void unknownOptionIsAUsageError() {
        assertEquals(2, Main.execute("--no-such-option"));
    }

    private static String captureStdout(Runnable body) {
        PrintStream original = System.out;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setOut(original);
        }
        return buffer.toString(StandardCharsets.UTF_8);
    }
}
