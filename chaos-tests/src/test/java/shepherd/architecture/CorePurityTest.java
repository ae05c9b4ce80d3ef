package shepherd.architecture;

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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * DESIGN §2: the two sans-I/O cores never see threads, clocks, randomness, sockets, ZooKeeper or logging. The module
 * graph keeps other modules out; this keeps java.base's own clocks, threads and randomness out of their sources, so
 * that a seed replays a simulation exactly. A negative control proves the scan sees what it must refuse.
 */
class CorePurityTest {
    private static final Pattern IMPORT = Pattern.compile("^import (static )?([\\w.]+)", Pattern.MULTILINE);
    private static final List<String> FORBIDDEN = List.of("currentTimeMillis", "nanoTime", "Instant.now",
            "java.time", "Thread", "Random", "java.util.concurrent", "org.slf4j", "java.io", "java.nio", "java.net",
            "System.out", "System.err", "synchronized", "shepherd.transport");

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "modules/coordination/src/main/java/shepherd/coordination, shepherd.coordination., 20",
        "modules/consumer/src/main/java/shepherd/consumer/session, shepherd.consumer.session., 8",
    })
    void coreUsesNoClockThreadRandomnessIoOrLogging(String folder, String ownPackage, int filesMin) throws IOException {
        Path root = Path.of("..").resolve(folder);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).toList();
        }
        assertTrue(files.size() >= filesMin, "sources found in " + root.toAbsolutePath());
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            problems.addAll(problems(file.getFileName().toString(), Files.readString(file), ownPackage));
        }
        assertEquals(List.of(), problems);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "long t = System.currentTimeMillis(); | uses currentTimeMillis",
        "new Thread(() -> {}).start();        | uses Thread",
        "import java.time.Clock;              | imports java.time.Clock",
        "import org.slf4j.Logger;             | imports org.slf4j.Logger",
    })
    void theScanCatchesWhatItMustRefuse(String line, String expected) {
        List<String> found = problems("Bad.java", line + "\n", "shepherd.coordination.");
        assertTrue(found.stream().anyMatch(p -> p.contains(expected)), () -> "expected '" + expected + "' in " + found);
    }

    static List<String> problems(String name, String text, String ownPackage) {
        List<String> problems = new ArrayList<>();
        Matcher m = IMPORT.matcher(text);
        while (m.find()) {
            String imported = m.group(2);
            if (!imported.startsWith("java.util.") && !imported.startsWith("shepherd.protocol.")
                    && !imported.startsWith(ownPackage)) {
                problems.add(name + " imports " + imported);
            }
        }
        String code = text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
        for (String word : FORBIDDEN) {
            if (code.contains(word)) {
                problems.add(name + " uses " + word);
            }
        }
        return problems;
    }
}
