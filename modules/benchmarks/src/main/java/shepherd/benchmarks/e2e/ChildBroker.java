package shepherd.benchmarks.e2e;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A broker in a JVM of its own, started as {@code shepherd broker} is ({@code shepherd.cli.Main broker}) from this
 * JVM's class path, so it can be killed for real: {@link #kill()} is {@code kill -9} (SIGKILL: no handover, the
 * ZooKeeper session is left to expire), {@link #terminate()} is SIGTERM (the command's graceful handover).
 * Standard error goes to a log file per broker, for when a run needs explaining.
 */
final class ChildBroker {
    final int id;
    final int port;
    private final String zookeeper;
    private final Map<String, String> settings;
    private final List<String> jvmOptions;
    private final Path logDir;
    private Process process;
    /** Where this incarnation's output begins in the log, which every incarnation appends to. */
    private long logStart;

    ChildBroker(int id, String zookeeper, Map<String, String> settings, List<String> jvmOptions, Path logDir) {
        this.id = id;
        this.port = freePort();
        this.zookeeper = zookeeper;
        this.settings = settings;
        this.jvmOptions = jvmOptions;
        this.logDir = logDir;
    }

    InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", port);
    }

    void start() {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-Dshepherd.log.level=" + System.getProperty("shepherd.child.log.level", "INFO"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("shepherd.cli.Main");
        command.add("broker");
        command.addAll(List.of("--broker-id", Integer.toString(id), "--listen-host", "127.0.0.1",
                "--advertised-host", "127.0.0.1", "--port", Integer.toString(port), "--zookeeper", zookeeper));
        settings.forEach((k, v) -> command.addAll(List.of("--set", k + "=" + v)));
        ProcessBuilder pb = new ProcessBuilder(command);
        File log = logFile().toFile();
        logStart = log.length();
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log));
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start broker " + id, e);
        }
    }

    private Path logFile() {
        return logDir.resolve("broker-" + id + ".log");
    }

    /** Waits until this incarnation has logged a line containing {@code needle}; false if it did not in time. */
    boolean awaitLogged(String needle, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        while (System.nanoTime() - deadline < 0 && alive()) {
            try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(logFile().toFile(), "r")) {
                f.seek(Math.min(logStart, f.length()));
                byte[] rest = new byte[(int) (f.length() - f.getFilePointer())];
                f.readFully(rest);
                if (new String(rest, java.nio.charset.StandardCharsets.UTF_8).contains(needle)) {
                    return true;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + logFile(), e);
            }
            Thread.sleep(20); // polling a child's log for a line, with a deadline
        }
        return false;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** kill -9. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** SIGTERM: the broker command hands over, then exits. Returns at once. */
    void terminate() {
        process.destroy();
    }

    void awaitExit() throws InterruptedException {
        process.waitFor();
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
