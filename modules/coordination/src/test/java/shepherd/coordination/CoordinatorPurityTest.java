package shepherd.coordination;

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
 * DESIGN §2: the coordination core never sees threads, clocks, sockets, ZooKeeper or logging. The module graph
 * keeps other modules out; this keeps java.base's own clocks, threads and randomness out, so that a seed replays a
 * simulation exactly.
 */
class CoordinatorPurityTest {
    private static final Path SOURCES = Path.of("src/main/java/shepherd/coordination");
    private static final Pattern IMPORT = Pattern.compile("^import (static )?([\\w.]+)", Pattern.MULTILINE);
    private static final List<String> ALLOWED_IMPORTS = List.of("java.util.", "shepherd.protocol.",
            "shepherd.coordination.");
    private static final List<String> FORBIDDEN = List.of("currentTimeMillis", "nanoTime", "Instant.now",
            "java.time", "Thread", "Random", "java.util.concurrent", "org.slf4j", "java.io", "java.nio", "java.net",
            "System.out", "System.err", "synchronized");

    @Test
    void coordinationCoreUsesNoClockThreadRandomnessIoOrLogging() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(SOURCES)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).toList();
        }
        assertTrue(files.size() >= 20, "sources found in " + SOURCES.toAbsolutePath());
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
