package shepherd.examples.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A JVM of its own running {@code java <arguments>}, as a user would start an example or a broker from a shell.
 * Its standard output is kept line by line (and copied to {@code <name>.out}) for the test to read; its standard
 * error goes to {@code <name>.err}, both in the output directory, for whoever reads a failure.
 */
public final class AppProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path stderr;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread reader;

    private AppProcess(String name, Process process, Path stdout, Path stderr) {
        this.name = name;
        this.process = process;
        this.stderr = stderr;
        this.reader = new Thread(() -> readLines(stdout), name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code java} (this JVM's own) with {@code arguments}.
     *
     * @param name      names the process in messages and its output files
     * @param outputDir where {@code <name>.out} and {@code <name>.err} are written (created if missing)
     */
    public static AppProcess start(String name, Path outputDir, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(arguments);
        try {
            Files.createDirectories(outputDir);
            Path stdout = outputDir.resolve(name + ".out");
            Path stderr = outputDir.resolve(name + ".err");
            Files.writeString(stdout, "$ " + String.join(" ", command) + "\n", StandardCharsets.UTF_8);
            Process process = new ProcessBuilder(command)
                    .redirectError(stderr.toFile())
                    .redirectInput(ProcessBuilder.Redirect.PIPE)
                    .start();
            return new AppProcess(name, process, stdout, stderr);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
    }

    private void readLines(Path copy) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
             Writer out = Files.newBufferedWriter(copy, StandardCharsets.UTF_8,
                     java.nio.file.StandardOpenOption.APPEND)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines.add(line);
                out.write(line);
                out.write('\n');
                out.flush();
            }
        } catch (IOException e) {
            lines.add("(" + name + ": standard output unreadable: " + e + ")");
        }
    }

    /** Every line printed so far. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    /** Waits for a line {@code matching}; fails naming {@code what}, the output so far and the process's fate. */
    public String awaitLine(Duration timeout, String what, Predicate<String> matching) {
        Await.until(timeout, () -> name + " printed no line " + what + describe(),
                () -> firstLine(matching).isPresent() || !process.isAlive() && !reader.isAlive());
        return firstLine(matching).orElseThrow(() -> new AssertionError(name + " ended without a line " + what
                + describe()));
    }

    /** Waits until {@code condition} holds of the lines printed so far. */
    public void awaitLines(Duration timeout, String what, Predicate<List<String>> condition) {
        Await.until(timeout, () -> name + ": " + what + describe(), () -> condition.test(lines()));
    }

    private Optional<String> firstLine(Predicate<String> matching) {
        return lines.stream().filter(matching).findFirst();
    }

    /**
     * Asks the process to stop as Ctrl-C or {@code kill} would (SIGTERM: its shutdown hooks run) and waits until it
     * has exited and its output is read.
     *
     * @return its exit code
     */
    public int stop(Duration timeout) {
        // Through the handle: Process.destroy() would also close our end of its standard output at once, and
        // what it prints while it stops would be lost.
        process.toHandle().destroy();
        return awaitExit(timeout);
    }

    /** Kills the process as {@code kill -9} would: no shutdown hook, no goodbye. Waits until it is gone. */
    public void kill(Duration timeout) {
        process.toHandle().destroyForcibly();
        awaitExit(timeout);
    }

    /** Waits until the process has exited by itself and its output is read; returns its exit code. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(name + " did not exit within " + timeout.toMillis() + " ms" + describe());
            }
            reader.join(timeout.toMillis());
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + name + " to exit", e);
        }
    }

    /** Everything the process wrote to its standard error so far. */
    public String errorOutput() {
        try {
            return Files.readString(stderr, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + stderr, e);
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    private String describe() {
        String state = process.isAlive() ? "running" : "exited with " + process.exitValue();
        List<String> out = lines();
        List<String> tail = out.subList(Math.max(0, out.size() - 20), out.size());
        return "\n  (" + name + " is " + state + "; last lines of its output:\n    " + String.join("\n    ", tail)
                + "\n  last lines of its standard error (" + stderr + "):\n    "
                + String.join("\n    ", stderrTail(20)) + ")";
    }

    private List<String> stderrTail(int count) {
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            return all.subList(Math.max(0, all.size() - count), all.size());
        } catch (IOException | UncheckedIOException e) {
            return List.of("(unreadable: " + e + ")");
        }
    }

    /** Kills the process if it still runs. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill(Duration.ofSeconds(10));
        }
    }
}
