package shepherd.chaos.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A process of a chaos run (a broker or a consumer worker) with its output in a log file, and the signals the
 * nemeses send it: SIGSTOP/SIGCONT (a paused process, the zombie case), SIGKILL (a crash), SIGTERM (a graceful
 * stop). It can be started again with the same command after it died.
 */
public final class ChildProcess {
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    /**
     * Every process a test JVM started and has not seen exit: killed when that JVM exits, however it exits. A
     * broker left running by an aborted run would otherwise reach the next run's ZooKeeper through a proxy port
     * that run happens to reuse, and claim its broker id.
     */
    private static final java.util.Set<Process> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "chaos-process-reaper"));
    }

    private final String name;
    private final List<String> command;
    private final Map<String, String> environment;
    private final Path log;
    private Process process;
    private boolean paused;

    public ChildProcess(String name, List<String> command, Map<String, String> environment, Path log) {
        this.name = name;
        this.command = List.copyOf(command);
        this.environment = Map.copyOf(environment);
        this.log = log;
    }

    /** The JVMs of a run share two cores with a dozen others: small heaps, quick start, little JIT. */
    public static List<String> jvmFlags() {
        return List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto");
    }

    public synchronized void start() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is already running as pid " + process.pid());
        }
        try {
            Files.createDirectories(log.getParent());
            Files.writeString(log, "---- start " + String.join(" ", command) + "\n", StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            pb.environment().putAll(environment);
            process = pb.start();
            LIVE.add(process);
            process.onExit().thenAccept(LIVE::remove);
            paused = false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
    }

    /** Its output, every incarnation appended. */
    public Path log() {
        return log;
    }

    public String name() {
        return name;
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    public synchronized boolean isPaused() {
        return paused;
    }

    public synchronized long pid() {
        if (process == null) {
            throw new IllegalStateException(name + " was never started");
        }
        return process.pid();
    }

    public synchronized void pause() {
        signal("STOP");
        paused = true;
    }

    public synchronized void resume() {
        signal("CONT");
        paused = false;
    }

    /** SIGKILL, then wait until it is gone. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        awaitExit();
        paused = false;
    }

    /** SIGTERM (SIGCONT first if paused), then wait up to {@code timeout}; SIGKILL if it is still there. */
    public void terminate(Duration timeout) {
        Process p;
        synchronized (this) {
            if (process == null || !process.isAlive()) {
                return;
            }
            if (paused) {
                resume();
            }
            p = process;
            p.destroy();
        }
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }

    /** Closes its standard input: a consumer worker takes that as "shut down gracefully". */
    public synchronized void closeStdin() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // already closed: the process is gone or going
        }
    }

    public synchronized void awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " (pid " + process.pid() + ") did not exit within " + timeout
                        + "\n" + tail());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + name, e);
        }
    }

    private void awaitExit() {
        awaitExit(EXIT_TIMEOUT);
    }

    /** Waits until the log (of this incarnation or any earlier) contains {@code text} {@code times} times. */
    public void awaitLog(String text, int times, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count(text) < times) {
            if (!isAlive()) {
                throw new IllegalStateException(name + " exited before logging \"" + text + "\"\n" + tail());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " did not log \"" + text + "\" within " + timeout + "\n"
                        + tail());
            }
            Waits.pause();
        }
    }

    public int count(String text) {
        String all = logText();
        int n = 0;
        for (int i = all.indexOf(text); i >= 0; i = all.indexOf(text, i + 1)) {
            n++;
        }
        return n;
    }

    public String logText() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    public String tail() {
        String all = logText();
        return "---- last lines of " + log.getFileName() + ":\n" + all.substring(Math.max(0, all.length() - 3000));
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid() + " (" + name + ") failed: "
                        + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot signal " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted signalling " + name, e);
        }
    }

    @Override
    public String toString() {
        return name + (process == null ? " (not started)" : " pid " + process.pid());
    }
}
