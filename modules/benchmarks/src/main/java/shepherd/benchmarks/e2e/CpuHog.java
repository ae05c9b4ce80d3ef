package shepherd.benchmarks.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Another tenant, made to order: a child JVM whose one thread spins on a core for as long as its parent lives (it
 * ends when its standard input closes: the parent closed it, or died). {@code RebalanceBench --cpu-hogs N} starts N
 * of them before it measures, so how a latency holds when other processes load the machine is an experiment that can
 * be repeated rather than whatever the shared machine's neighbours happened to do (docs/performance.md).
 */
final class CpuHog implements AutoCloseable {
    private final List<Process> processes = new ArrayList<>();

    private CpuHog() {}

    /** Starts {@code n} spinning child JVMs (none for 0 or less; {@code RebalanceBench}'s options refuse less). */
    static CpuHog start(int n) {
        CpuHog hogs = new CpuHog();
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx16m", "-cp", System.getProperty("java.class.path"), CpuHog.class.getName());
        try {
            for (int i = 0; i < n; i++) {
                hogs.processes.add(new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
        } catch (IOException e) {
            hogs.close();
            throw new UncheckedIOException("cannot start a JVM to load the machine: " + command, e);
        }
        return hogs;
    }

    int count() {
        return processes.size();
    }

    /** Closes every child's standard input, which ends it; kills one that does not end within 10 s. */
    @Override
    public void close() {
        processes.forEach(ChildZooKeeper::endByClosingInput);
    }

    /** The child: spins until its standard input ends. */
    public static void main(String[] argv) throws IOException {
        Thread spinner = new Thread(() -> {
            long x = 0;
            while (true) {
                x = x * 6364136223846793005L + 1442695040888963407L; // work the JIT cannot remove: it is published
                if (x == 42) {
                    System.out.println(x);
                }
            }
        }, "cpu-hog");
        spinner.setDaemon(true);
        spinner.start();
        while (System.in.read() >= 0) {
            // nothing to answer: end of input is the signal to stop
        }
        System.exit(0);
    }
}
