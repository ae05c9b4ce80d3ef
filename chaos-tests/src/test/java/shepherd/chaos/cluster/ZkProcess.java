package shepherd.chaos.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One ZooKeeper member as a child JVM running {@code QuorumPeerMain} on its {@code zoo.cfg}, its stdout and stderr
 * appended to one log file across restarts. The child runs on this JVM's class path (the test class path, where the
 * ZooKeeper bundle is), which under Failsafe's manifest-only booter jar still works: the jar's {@code Class-Path}
 * lists the test class path.
 */
final class ZkProcess {
    static final String MAIN_CLASS = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
    /** How long a SIGKILLed JVM may take to be reaped. */
    static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    static final int LOG_TAIL_LINES = 40;
    /** A log line longer than this is cut in tails (a stack trace line is far shorter). */
    static final int LOG_LINE_CHARS_MAX = 500;

    private final int id;
    private final Path config;
    private final Path log;
    private Process process; // null before the first start
    private boolean killed; // by us: its exit is expected

    ZkProcess(int id, Path config, Path log) {
        this.id = id;
        this.config = config;
        this.log = log;
    }

    /** Launches the JVM; does not wait for it to serve. */
    synchronized void start() {
        if (isAlive()) {
            throw new IllegalStateException("ZooKeeper member " + id + " is already running as pid "
                    + process.pid());
        }
        try {
            Files.writeString(log, "==== starting member " + id + " with " + config + "\n", StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            killed = false;
            process = new ProcessBuilder(command())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start ZooKeeper member " + id + " (log " + log + ")", e);
        }
    }

    /** SIGKILL, then waits until the process is gone: no goodbye to the quorum, no flush. */
    synchronized void kill() throws InterruptedException {
        if (process == null) {
            return;
        }
        killed = true;
        process.destroyForcibly();
        if (!process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("ZooKeeper member " + id + " (pid " + process.pid()
                    + ") still runs " + EXIT_TIMEOUT.toSeconds() + " s after SIGKILL");
        }
    }

    /** Started, not killed by us, and gone: it failed (a port taken, a corrupt log); waiting on it is pointless. */
    synchronized boolean exitedOnItsOwn() {
        return process != null && !killed && !process.isAlive();
    }

    /** For a shutdown hook: no waiting, no locks held long. */
    synchronized void killNow() {
        if (process != null) {
            process.destroyForcibly();
        }
    }

    synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** {@code "pid N"}, {@code "exited with N"} or {@code "never started"}, for messages. */
    synchronized String describe() {
        if (process == null) {
            return "never started";
        }
        return process.isAlive() ? "pid " + process.pid() : "exited with " + process.exitValue();
    }

    Path log() {
        return log;
    }

    /** The last lines of the log, for failure messages. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            List<String> tail = new ArrayList<>();
            for (String line : lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size())) {
                tail.add(line.length() > LOG_LINE_CHARS_MAX ? line.substring(0, LOG_LINE_CHARS_MAX) + "…" : line);
            }
            return String.join("\n", tail);
        } catch (IOException e) {
            return "(log " + log + " unreadable: " + e + ")";
        }
    }

    private List<String> command() {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Three members share two cores with everything else: a small heap, one GC thread, the quick JIT only.
        cmd.addAll(List.of("-Xms32m", "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-XX:-UsePerfData"));
        cmd.add("-Dzookeeper.admin.enableServer=false");
        // A SIGKILLed JVM leaves its writes in the page cache, which survives it: fsync buys nothing here.
        cmd.add("-Dzookeeper.forceSync=no");
        // Log files are preallocated in this many KiB (default 64 MiB per file, per member).
        cmd.add("-Dzookeeper.preAllocSize=4096");
        // Election retries back off up to this (default 60 s), far longer than a healed partition should wait.
        cmd.add("-Dzookeeper.fastleader.maxNotificationInterval=1000");
        // The test class path holds two SLF4J bindings; the simple one logs at INFO to stderr, into the log file.
        cmd.add("-Dslf4j.provider=org.slf4j.simple.SimpleServiceProvider");
        cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
        cmd.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
        cmd.add("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(MAIN_CLASS);
        cmd.add(config.toString());
        return cmd;
    }
}
