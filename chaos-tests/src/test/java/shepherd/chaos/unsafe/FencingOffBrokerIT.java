package shepherd.chaos.unsafe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import shepherd.chaos.cluster.ZkClients;
import org.junit.jupiter.api.io.TempDir;
import shepherd.zookeeper.EmbeddedZooKeeper;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;

/**
 * The chaos suite's negative control on real processes: brokers from the runtime image, given the
 * {@link TestSupportJar} on their class path and {@code --set test.fencing=disabled}, behave like the seed's
 * unfenced coordinator — a successor takes over the crashed coordinator's epoch unbumped, so nothing tells the two
 * apart — and without the jar the same launch fails at once with an error naming the setting.
 */
class FencingOffBrokerIT {
    /** Where modules/image links the image, relative to this module. */
    private static final Path IMAGE = Path.of("..", "modules", "image", "target", "maven-jlink", "default")
            .toAbsolutePath().normalize();
    private static final long TIMEOUT_MS = 60_000;
    private static final String WARNING = "FENCING DISABLED (test.fencing=disabled)";

    @TempDir
    Path dir;

    private final List<Broker> brokers = new ArrayList<>();

    @AfterEach
    void killBrokers() {
        brokers.forEach(b -> b.process.destroyForcibly());
    }

    @Test
    void withTheTestSupportJarASuccessorTakesTheCrashedCoordinatorsEpochUnbumped() throws Exception {
        Path jar = TestSupportJar.build(dir);
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.startTemporary();
                ZooKeeper client = connect(zk.connectString())) {
            Broker first = launch(1, zk.connectString(), jar);
            await(() -> coordinatorIs(client, 1), "broker 1 never became coordinator", first);
            int epoch = client.exists(ZkPaths.EPOCH, false).getVersion();
            Broker second = launch(2, zk.connectString(), jar);
            await(() -> exists(client, ZkPaths.broker(2)), "broker 2 never registered", second);

            first.process.destroyForcibly(); // a crash: no handover, its session expires on the server
            await(() -> coordinatorIs(client, 2), "broker 2 never took over", second);

            assertEquals(epoch, client.exists(ZkPaths.EPOCH, false).getVersion(), "the epoch was bumped");
            Pattern won = Pattern.compile("broker 2 won the election, epoch " + epoch + "\\b");
            await(() -> won.matcher(second.output()).find(), "broker 2 did not report winning epoch " + epoch,
                    second);
            assertTrue(first.output().contains(WARNING), first.output());
            assertTrue(second.output().contains(WARNING), second.output());
        }
    }

    @Test
    void withoutTheTestSupportJarFencingDisabledFailsFastNamingTheSetting() throws Exception {
        Broker broker = launch(3, "127.0.0.1:1", null); // nothing listens there: the check comes first
        assertTrue(broker.process.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS), "still running:\n" + broker.output());
        broker.reader.join(10_000);
        assertNotEquals(0, broker.process.exitValue(), broker.output());
        assertTrue(broker.output().contains("test.fencing=disabled is available only in fault-injection test builds:"
                + " no shepherd.broker.spi.TestSupport provider permitting it was found"), broker.output());
        assertTrue(!broker.output().contains(WARNING), broker.output());
    }

    /** A broker process from the image with {@code test.fencing=disabled}, and the jar on its class path if given. */
    private Broker launch(int id, String zookeeper, Path jar) throws IOException {
        assertTrue(Files.isDirectory(IMAGE), "no runtime image at " + IMAGE + " (build the reactor first)");
        ProcessBuilder builder = new ProcessBuilder(IMAGE.resolve("bin/shepherd").toString(), "broker",
                "--broker-id", Integer.toString(id), "--listen-host", "127.0.0.1", "--port", "0",
                "--zookeeper", zookeeper, "--session-timeout-ms", "2000", "--set", "test.fencing=disabled")
                .redirectErrorStream(true);
        builder.environment().remove("CLASSPATH");
        if (jar != null) {
            TestSupportJar.putOnClassPath(builder, jar);
        }
        Broker broker = new Broker(builder.start());
        brokers.add(broker);
        return broker;
    }

    private static final class Broker {
        final Process process;
        final StringBuffer output = new StringBuffer();
        final Thread reader;

        Broker(Process process) {
            this.process = process;
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                output.append(e).append('\n');
            }
            reader = new Thread(() -> {
                try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                        output.append(line).append('\n');
                    }
                } catch (IOException e) {
                    output.append(e).append('\n');
                }
            });
            reader.setDaemon(true);
            reader.start();
        }

        String output() {
            return output.toString();
        }
    }

    private static boolean coordinatorIs(ZooKeeper client, int brokerId) {
        try {
            Stat stat = new Stat();
            byte[] data = client.getData(ZkPaths.COORDINATOR, false, stat);
            return ZnodeCodec.decodeCoordinator(ZkPaths.COORDINATOR, data) == brokerId;
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            return false;
        } catch (Exception e) {
            throw new AssertionError("cannot read " + ZkPaths.COORDINATOR + ": " + e, e);
        }
    }

    private static boolean exists(ZooKeeper client, String path) {
        try {
            return client.exists(path, false) != null;
        } catch (Exception e) {
            throw new AssertionError("cannot read " + path + ": " + e, e);
        }
    }

    private static void await(BooleanSupplier condition, String failure, Broker watched) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, failure + ":\n" + watched.output());
            assertTrue(watched.process.isAlive(), "the broker exited:\n" + watched.output());
            Thread.sleep(50); // polling interval of a condition with a deadline
        }
    }

    private static ZooKeeper connect(String connectString) throws Exception {
        return ZkClients.connect(connectString);
    }
}
