package shepherd.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Boots the jlink runtime image as a separate process, the way a user meets it. */
class RuntimeImageIT {
    /** Where modules/image links the image, relative to this module. */
    static final Path IMAGE = Path.of("..", "modules", "image", "target", "maven-jlink", "default").toAbsolutePath()
            .normalize();

    @Test
    void launcherPrintsItsVersion() throws Exception {
        Result result = run(IMAGE.resolve("bin/shepherd").toString(), "--version");
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().startsWith("shepherd "), result.output());
    }

    @Test
    void imageLinksTheProjectZooKeeperNettyTheLoggingBindingAndTheServiceProviders() throws Exception {
        Result result = run(IMAGE.resolve("bin/java").toString(), "--list-modules");
        assertEquals(0, result.exitCode(), result.output());
        // The service providers too: the assignors live in shepherd.coordination, the file source in its module.
        for (String module : List.of("shepherd.cli", "shepherd.broker", "shepherd.protocol", "shepherd.transport",
                "shepherd.zookeeper", "org.apache.zookeeper", "io.netty.transport", "ch.qos.logback.classic",
                "shepherd.coordination", "shepherd.consumer", "shepherd.source.file")) {
            assertTrue(result.output().contains(module + "@") || result.output().contains(module + "\n"),
                    module + " is not linked:\n" + result.output());
        }
    }

    record Result(int exitCode, String output) {
    }

    static Result run(String... command) throws IOException, InterruptedException {
        assertTrue(Files.isDirectory(IMAGE), "no runtime image at " + IMAGE + " (build the reactor first)");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        byte[] output = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "timed out: " + String.join(" ", command));
        return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }
}
