package shepherd.benchmarks.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import shepherd.zookeeper.EmbeddedZooKeeper;

/**
 * A ZooKeeper server in a JVM of its own ({@code RebalanceBench}'s default, {@code --zookeeper-jvm own}): the same
 * {@link EmbeddedZooKeeper} that {@code --zookeeper-jvm shared} runs in the harness's JVM, started from this JVM's class path, so its
 * allocation and its collector's pauses stay out of the JVM that holds the broker and the consumers, as with a
 * ZooKeeper ensemble of one's own. The child prints {@code COLLECTOR <names>} (its garbage collector, as its
 * management beans name it) and then {@code READY <host:port>} once it serves, answers each empty line on its
 * standard input with its collector's pauses and its compilers' time ({@link #work()}) and each {@code LIVE} with its
 * live heap ({@link #liveHeapBytes()}), and stops when its standard input closes (the parent's {@link #close()}, or
 * the parent's death).
 *
 * <p>It runs on the JVM's defaults unless it is given JVM options: how a ZooKeeper JVM is tuned is its operator's
 * choice, and a harness that tuned it silently would report the tuning as Shepherd's (docs/performance.md).
 */
final class ChildZooKeeper implements AutoCloseable {
    private static final String READY = "READY ";
    private static final String COLLECTOR = "COLLECTOR ";
    /** The request {@code LIVE} and its answer {@code LIVE <bytes>}: the heap in use after a full collection. */
    private static final String LIVE = "LIVE ";
    private static final long START_TIMEOUT_S = 60;

    /** The child's answer to a newline on its standard input: {@code WORK <pauses> <pause-ms> <compile-ms>} so far. */
    private static final String WORK = "WORK ";

    private final Process process;
    private final BufferedReader out;
    private final String connectString;
    private final String collector;

    private ChildZooKeeper(Process process, BufferedReader out, String connectString, String collector) {
        this.process = process;
        this.out = out;
        this.connectString = connectString;
        this.collector = collector;
    }

    /**
     * Starts the child with ZooKeeper's {@code tickTimeMs} and waits until it serves. Without {@code fsync} its
     * transaction log is written but not forced to disk ({@code zookeeper.forceSync=no}): writes are then not
     * durable, which only an experiment that wants the disk's share of a latency should ask for.
     *
     * @param jvmOptions options for the child's JVM (a collector, a heap size), before the harness's own; none for
     *                   the JVM's defaults
     */
    static ChildZooKeeper start(int tickTimeMs, boolean fsync, List<String> jvmOptions) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-Dshepherd.log.level=WARN", "-Dzookeeper.forceSync=" + (fsync ? "yes" : "no"),
                "-cp", System.getProperty("java.class.path"), ChildZooKeeper.class.getName(),
                Integer.toString(tickTimeMs)));
        Process p;
        try {
            p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a JVM for ZooKeeper: " + command, e);
        }
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line;
            String collector = "unknown";
            while ((line = out.readLine()) != null) {
                if (line.startsWith(COLLECTOR)) {
                    collector = line.substring(COLLECTOR.length()).trim();
                } else if (line.startsWith(READY)) {
                    return new ChildZooKeeper(p, out, line.substring(READY.length()).trim(), collector);
                }
            }
            throw new IllegalStateException("ZooKeeper's JVM exited before it served (exit code "
                    + waitFor(p) + "); its standard error is above");
        } catch (IOException | RuntimeException e) {
            p.destroyForcibly();
            throw e instanceof RuntimeException r ? r
                    : new UncheckedIOException("cannot read ZooKeeper's JVM's output", (IOException) e);
        }
    }

    private static int waitFor(Process p) {
        try {
            return p.waitFor(START_TIMEOUT_S, TimeUnit.SECONDS) ? p.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** The child JVM's own work so far: its collector's pauses, and its JIT compilers' milliseconds. */
    record Work(Gc.Pauses gc, long jitMs) {
        static final Work NONE = new Work(new Gc.Pauses(0, 0), 0);
    }

    /**
     * The child JVM's own work so far (a young pause there stops the server, and whatever request it was serving
     * waits; a compilation there takes one of the cores the server's threads need): asked over its standard input,
     * answered on its standard output.
     */
    synchronized Work work() {
        try {
            process.getOutputStream().write('\n');
            process.getOutputStream().flush();
            String line = out.readLine();
            if (line == null || !line.startsWith(WORK)) {
                throw new IllegalStateException("ZooKeeper's JVM answered '" + line + "' when asked for its work");
            }
            String[] f = line.substring(WORK.length()).trim().split(" ");
            return new Work(new Gc.Pauses(Long.parseLong(f[0]), Long.parseLong(f[1])), Long.parseLong(f[2]));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot ask ZooKeeper's JVM for its work", e);
        }
    }

    /** {@code 127.0.0.1:<port>}. */
    String connectString() {
        return connectString;
    }

    /**
     * The child's live heap: what its heap holds after a full collection, which it runs for the question (so never
     * ask between measured repetitions). What the server keeps (its tree, its log of recent transactions) is in it.
     */
    synchronized long liveHeapBytes() {
        try {
            process.getOutputStream().write((LIVE.trim() + "\n").getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
            String line = out.readLine();
            if (line == null || !line.startsWith(LIVE)) {
                throw new IllegalStateException("ZooKeeper's JVM answered '" + line + "' to " + LIVE.trim());
            }
            return Long.parseLong(line.substring(LIVE.length()).trim());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot ask ZooKeeper's JVM for its live heap", e);
        }
    }

    /** This JVM's heap in use after a full collection (two, so that what the first finalised is gone too). */
    static long ownLiveHeapBytes() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** The child's garbage collector, as its management beans name it ({@link Gc#collector()}). */
    String collector() {
        return collector;
    }

    /** The child's process id (its threads' run-queue waits are read from /proc: {@link RunQueue}). */
    long pid() {
        return process.pid();
    }

    /** Closes the child's standard input (it stops its server and exits), then waits for it; kills it if it hangs. */
    @Override
    public void close() {
        endByClosingInput(process);
    }

    /**
     * Ends a child JVM of the harness that stops when its standard input closes: closes it, waits up to 10 s, and
     * kills the child if it has not ended by then (or if it cannot be told).
     */
    static void endByClosingInput(Process child) {
        try {
            child.getOutputStream().close();
            if (!child.waitFor(10, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        } catch (IOException e) {
            child.destroyForcibly();
        } catch (InterruptedException e) {
            child.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** The child: {@code ChildZooKeeper <tickTimeMs>}. */
    public static void main(String[] argv) throws IOException {
        if (argv.length != 1) {
            System.err.println("usage: ChildZooKeeper <tickTimeMs>");
            System.exit(2);
        }
        int tick = Integer.parseInt(argv[0]);
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(Files.createTempDirectory("shepherd-bench-zk-"), true,
                tick)) {
            System.out.println(COLLECTOR + Gc.collector());
            System.out.println(READY + zk.connectString());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String request;
            while ((request = in.readLine()) != null) { // end of input is the signal to stop
                if (request.equals(LIVE.trim())) {
                    System.out.println(LIVE + ownLiveHeapBytes());
                } else { // an empty line: the parent asks for this JVM's work
                    Gc.Pauses p = Gc.sinceStart();
                    System.out.println(WORK + p.count() + " " + p.ms() + " " + Jit.totalMs());
                }
                System.out.flush();
            }
        }
        System.exit(0);
    }
}
