package shepherd.consumer.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The package-info promises that the core sees java.base and shepherd.protocol only, and never a clock, a thread,
 * randomness, the transport or a logger, so that the simulation can replay it. This keeps the promise checked.
 */
class SessionCorePurityTest {
    private static final Path SOURCES = Path.of("src/main/java/shepherd/consumer/session");
    private static final Pattern IMPORT = Pattern.compile("^import (static )?([\\w.]+)", Pattern.MULTILINE);
    private static final List<String> ALLOWED_IMPORTS = List.of("java.util.", "shepherd.protocol.",
            "shepherd.consumer.session.");
    private static final List<String> FORBIDDEN = List.of("currentTimeMillis", "nanoTime", "Instant.now",
            "java.time", "Thread", "Random", "java.util.concurrent", "org.slf4j", "shepherd.transport", "java.io",
            "java.nio", "System.out", "System.err");

    @Test
    void sessionCoreUsesOnlyJavaBaseAndProtocolAndNoClocksThreadsOrLogging() throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(SOURCES)) {
            files = list.filter(p -> p.toString().endsWith(".java")).toList();
        }
        assertTrue(files.size() >= 8, "sources found in " + SOURCES.toAbsolutePath());
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            String text = Files.readString(file);
            Matcher m = IMPORT.matcher(text);
            while (m.find()) {
                String imported = m.group(2);
                if (ALLOWED_IMPORTS.stream().noneMatch(imported::startsWith)) {
                    problems.add(file.getFileName() + " imports " + imported);
                }
            }
            String code = text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
            for (String word : FORBIDDEN) {
                if (code.contains(word)) {
                    problems.add(file.getFileName() + " uses " + word);
                }
            }
        }
        assertEquals(List.of(), problems);
    }
}
