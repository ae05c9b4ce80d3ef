package shepherd.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import shepherd.chaos.LoopbackPorts;
import shepherd.chaos.cluster.ZkClients;
import shepherd.zookeeper.EmbeddedZooKeeper;

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

    @Test
    void theDemoRunsFromTheImageAndPassesItsChecks() throws Exception {
        Result result = run(180, IMAGE.resolve("bin/shepherd").toString(), "demo", "--duration", "20s", "--plain",
                "--seed", "7");
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("== summary (seed 7"), result.output());
        assertTrue(result.output().contains("result: every invariant holds"), result.output());
    }

    @Test
    void aBrokerFromTheImageJoinsZooKeeperAndStopsCleanlyOnSigterm() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.startTemporary()) {
            Process broker = new ProcessBuilder(IMAGE.resolve("bin/shepherd").toString(), "broker", "--broker-id", "4",
                    "--listen-host", "127.0.0.1", "--port", "0", "--zookeeper", zk.connectString())
                    .redirectErrorStream(true).start();
            StringBuffer output = new StringBuffer();
            Thread reader = capture(broker, output);
            try (ZooKeeper client = connect(zk.connectString())) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                // "listening on" comes once the broker has started; a signal then tests the plain stop.
                while (client.exists("/brokers/ids/4", false) == null
                        || !output.toString().contains("broker 4 listening on")) {
                    assertTrue(System.nanoTime() < deadline, "broker 4 never registered:\n" + output);
                    assertTrue(broker.isAlive(), "the broker exited:\n" + output);
                    Thread.sleep(50); // polling interval of a condition with a deadline
                }
                broker.toHandle().destroy(); // SIGTERM; Process.destroy() would also close our end of its output
                assertTrue(broker.waitFor(60, TimeUnit.SECONDS), "no exit after SIGTERM");
                reader.join(10_000);
                assertEquals(0, broker.exitValue(), output.toString());
                assertTrue(output.toString().contains("broker 4 listening on 127.0.0.1:"), output.toString());
                assertEquals(null, client.exists("/brokers/ids/4", false), "its registration is gone");
            } finally {
                broker.destroyForcibly();
            }
        }
    }

    /**
     * A SIGTERM while the broker is still starting (its ZooKeeper is not up yet, so the start cannot finish) is a stop
     * request like any other: once ZooKeeper comes and the start completes, the broker hands over and exits 0. No
     * timing assumption: the signal is sent after the command says it catches it, and ZooKeeper starts only after
     * the command says it caught it.
     */
    @Test
    void aSigtermDuringStartUpStopsTheBrokerCleanlyOnceItHasStarted() throws Exception {
        int port = LoopbackPorts.free();
        Process broker = new ProcessBuilder(IMAGE.resolve("bin/shepherd").toString(), "broker", "--broker-id", "5",
                "--listen-host", "127.0.0.1", "--port", "0", "--zookeeper", "127.0.0.1:" + port)
                .redirectErrorStream(true).start();
        StringBuffer output = new StringBuffer();
        Thread reader = capture(broker, output);
        try {
            awaitOutput(broker, output, "broker 5 starting");
            broker.toHandle().destroy(); // SIGTERM
            awaitOutput(broker, output, "SIGTERM: stopping gracefully");
            assertTrue(!output.toString().contains("listening on"), "started too early:\n" + output);
            try (EmbeddedZooKeeper zk = startZooKeeperOn(port); ZooKeeper client = connect(zk.connectString())) {
                assertTrue(broker.waitFor(60, TimeUnit.SECONDS), "no exit after the start:\n" + output);
                reader.join(10_000);
                assertEquals(0, broker.exitValue(), output.toString());
                assertTrue(output.toString().contains("broker 5 listening on 127.0.0.1:"), output.toString());
                assertTrue(output.toString().contains("broker 5 stopped cleanly"), output.toString());
                assertEquals(null, client.exists("/brokers/ids/5", false), "its registration is gone");
            }
        } finally {
            broker.destroyForcibly();
        }
    }

    private static void awaitOutput(Process process, StringBuffer output, String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!output.toString().contains(text)) {
            assertTrue(System.nanoTime() < deadline, "no '" + text + "' in:\n" + output);
            assertTrue(process.isAlive(), "the broker exited:\n" + output);
            Thread.sleep(50); // polling interval of a condition with a deadline
        }
    }

    /** An embedded ZooKeeper on a port chosen before the broker was launched. */
    private static EmbeddedZooKeeper startZooKeeperOn(int port) throws IOException {
        return EmbeddedZooKeeper.start(Files.createTempDirectory("shepherd-zk-"), true, 200, port);
    }

    /** Closes the process's input and copies its output, line by line, into {@code output} on a thread of its own. */
    static Thread capture(Process process, StringBuffer output) throws IOException {
        process.getOutputStream().close();
        Thread reader = new Thread(() -> {
            try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    output.append(line).append('\n');
                }
            } catch (IOException e) {
                output.append(e);
            }
        });
        reader.start();
        return reader;
    }

    private static ZooKeeper connect(String connectString) throws Exception {
        return ZkClients.connect(connectString);
    }

    record Result(int exitCode, String output) {
    }

    static Result run(String... command) throws IOException, InterruptedException {
        return run(60, command);
    }

    static Result run(int timeoutSeconds, String... command) throws IOException, InterruptedException {
        assertTrue(Files.isDirectory(IMAGE), "no runtime image at " + IMAGE + " (build the reactor first)");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        byte[] output = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(timeoutSeconds, TimeUnit.SECONDS), "timed out: " + String.join(" ", command));
        return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }
}
