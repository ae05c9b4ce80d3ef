package shepherd.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import shepherd.cli.admin.ZkAdmin;
import shepherd.cli.commands.BrokerCommand;
import shepherd.cli.local.LocalCluster;

/**
 * {@code shepherd broker} run on a thread as {@code Main} would run it: it registers, says where it listens, and
 * stops cleanly (exit code 0) on {@link BrokerCommand#stop()} or an interrupt.
 */
class BrokerCommandIT {
    private static final long START_TIMEOUT_S = 60;
    private static final long STOP_TIMEOUT_MS = 60_000;

    @TempDir
    Path dir;

    /** A broker command running on its own thread. */
    private static final class Running implements AutoCloseable {
        final BrokerCommand command = new BrokerCommand();
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final AtomicInteger exitCode = new AtomicInteger(-1);
        final Thread thread;

        Running(String... args) {
            CommandLine line = new CommandLine(command);
            line.setOut(new PrintWriter(out, true));
            line.setErr(new PrintWriter(err, true));
            thread = new Thread(() -> exitCode.set(line.execute(args)), "broker-command");
            thread.start();
        }

        BrokerCommand.Running started() throws Exception {
            return command.running().get(START_TIMEOUT_S, TimeUnit.SECONDS);
        }

        int awaitExit() throws InterruptedException {
            thread.join(STOP_TIMEOUT_MS);
            assertFalse(thread.isAlive(), () -> "the command did not return; out: " + out + " err: " + err);
            return exitCode.get();
        }

        @Override
        public void close() throws InterruptedException {
            command.stop();
            thread.join(STOP_TIMEOUT_MS);
        }
    }

    @Test
    void embeddedZooKeeperBrokerRegistersWarnsLoudlyAndStopsCleanly() throws Exception {
        PrintStream originalErr = System.err;
        ByteArrayOutputStream logs = new ByteArrayOutputStream();
        System.setErr(new PrintStream(logs, true, UTF_8)); // slf4j-simple writes to the current System.err
        BrokerCommand.Running r;
        Running broker = new Running("--broker-id", "1", "--zookeeper", "embedded", "--listen-host", "127.0.0.1",
                "--port", "0", "--session-timeout-ms", "4000", "--shutdown-timeout-ms", "10000");
        try (broker) {
            r = broker.started();
            assertTrue(r.embeddedZooKeeper());
            assertTrue(r.port() > 0);
            try (ZkAdmin zk = ZkAdmin.open(r.zookeeperConnect())) {
                assertEquals(List.of(1), zk.brokerIds());
            }
            assertTrue(broker.out.toString().contains("broker 1 listening on 127.0.0.1:" + r.port()
                    + ", advertised as 127.0.0.1:" + r.port() + ", ZooKeeper " + r.zookeeperConnect()
                    + " (embedded)"), broker.out::toString);

            broker.command.stop();
            assertEquals(0, broker.awaitExit(), () -> "out: " + broker.out + " err: " + broker.err);
        } finally {
            System.setErr(originalErr);
        }
        assertTrue(broker.out.toString().contains("broker 1 stopped cleanly"), broker.out::toString);
        String banner = logs.toString(UTF_8);
        assertTrue(banner.contains("EMBEDDED ZOOKEEPER at " + r.zookeeperConnect()) && banner.contains("NO QUORUM")
                && banner.contains("DELETED when this broker stops"), banner);
    }

    @Test
    void brokerJoinsAnExternalZooKeeperWithFlagsOverTheFileAndLeavesOnInterrupt() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().brokers(1).start();
             ZkAdmin zk = ZkAdmin.open(cluster.zookeeperConnectString())) {
            Path config = dir.resolve("broker.properties");
            Files.writeString(config, "broker.id=3\nlisten.host=127.0.0.1\nlisten.port=0\n"
                    + "zookeeper.connect=127.0.0.1:1\nsession.timeout.ms=3000\n", UTF_8);
            try (Running broker = new Running("--config", config.toString(), "--broker-id", "7", "--zookeeper",
                    cluster.zookeeperConnectString(), "--set", "handover.grace.ms=200")) {
                BrokerCommand.Running r = broker.started();
                assertEquals(7, r.brokerId(), "the flag wins over the file");
                assertFalse(r.embeddedZooKeeper());
                assertEquals(List.of(1, 7), zk.brokerIds());

                broker.thread.interrupt();
                assertEquals(0, broker.awaitExit(), () -> "out: " + broker.out + " err: " + broker.err);
                assertEquals(List.of(1), zk.brokerIds(), "a stopped broker's registration is gone");
            }
        }
    }

    @Test
    void badSettingsAreOneLineErrorsAndStartNothing() {
        BrokerCommand noId = new BrokerCommand();
        CommandRun missing = CommandRun.run(noId, "--zookeeper", "embedded").assertOneLineError(2);
        assertTrue(missing.err().contains("broker.id is required"), missing::toString);
        ExecutionException failed = assertThrows(ExecutionException.class, () -> noId.running().get());
        assertTrue(failed.getCause().getMessage().contains("broker.id"));

        assertTrue(CommandRun.run(new BrokerCommand(), "--broker-id", "1", "--set", "sesion.timeout.ms=5")
                .assertOneLineError(2).err().contains("unknown key sesion.timeout.ms"));
        assertTrue(CommandRun.run(new BrokerCommand(), "--broker-id", "1", "--session-timeout-ms", "12")
                .assertOneLineError(2).err().contains("session.timeout.ms must be between 1000 and 600000, got 12"));
        assertTrue(CommandRun.run(new BrokerCommand(), "--broker-id", "1", "--zookeeper-data-dir", dir.toString())
                .assertOneLineError(2).err().contains("--zookeeper-data-dir is for --zookeeper embedded only"));
        assertTrue(CommandRun.run(new BrokerCommand(), "--config", dir.resolve("none.properties").toString())
                .assertOneLineError(2).err().contains("none.properties does not exist"));
        assertTrue(CommandRun.run(new BrokerCommand(), "--broker-id", "1", "--zookeeper", "host:0")
                .assertOneLineError(2).err().contains("host:0"));
        CommandRun help = CommandRun.run(new BrokerCommand(), "--help").assertOk();
        for (String option : new String[] {"--config", "--broker-id", "--listen-host", "--port", "--advertised-host",
            "--advertised-port", "--zookeeper", "--zookeeper-data-dir", "--session-timeout-ms",
            "--shutdown-timeout-ms", "--set", "--verbose"}) {
            assertTrue(help.out().contains(option), option);
        }
    }
}
