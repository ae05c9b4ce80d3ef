package shepherd.benchmarks.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What every harness prints and keeps: a header naming the command, the machine and its load, then markdown
 * tables. The same text goes to standard output and to {@code <dir>/<name>-<yyyyMMdd-HHmmss>.md}, so two runs
 * compare with {@code diff} (docs/performance.md, "Comparing runs").
 */
final class Report {
    private final String name;
    private final StringBuilder text = new StringBuilder();
    private final String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));

    Report(String name, String command) {
        this.name = name;
        line("# " + name + " " + stamp);
        line("");
        line("Command: `" + command + "`");
        line("");
        line("Machine: " + machine());
        line("");
        line("Load average at start: " + loadAverage());
        line("");
    }

    static String machine() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return String.format(Locale.ROOT, "%d cores (%s), %.1f GiB RAM, %s %s, Java %s (%s; collector: %s)",
                Runtime.getRuntime().availableProcessors(), cpuModel(), os.getTotalMemorySize() / (double) (1L << 30),
                System.getProperty("os.name"), System.getProperty("os.arch"), System.getProperty("java.version"),
                System.getProperty("java.vm.name"), Gc.collector());
    }

    /**
     * The processor's model and clock as Linux names them: a shared machine is not always the same hardware from one
     * day to the next, and two runs compare only on the same one. "unknown" elsewhere.
     */
    static String cpuModel() {
        try {
            String model = null;
            String mhz = null;
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                int colon = l.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String key = l.substring(0, colon).trim();
                if (model == null && key.equals("model name")) {
                    model = l.substring(colon + 1).trim();
                } else if (mhz == null && key.equals("cpu MHz")) {
                    mhz = l.substring(colon + 1).trim();
                }
            }
            if (model == null) {
                return "unknown";
            }
            return mhz == null ? model : model + ", " + Math.round(Double.parseDouble(mhz)) + " MHz";
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** The 1, 5 and 15 minute load averages (Linux), so a noisy run says so itself. */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException | RuntimeException e) {
            return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    /**
     * A harness's options, read from {@code argv} by {@code parse} (which ends with {@link Args#commandLine}, so an
     * option it never asked for is refused). A bad or unknown option ends the JVM: its message on standard error,
     * exit code 2, and nothing run.
     */
    static <T> T options(Class<?> harness, String[] argv, Function<Args, T> parse) {
        try {
            return parse.apply(new Args(argv));
        } catch (IllegalArgumentException e) {
            System.err.println(harness.getSimpleName() + ": " + e.getMessage());
            System.exit(2);
            throw e; // not reached
        }
    }

    void line(String s) {
        System.out.println(s);
        System.out.flush();
        text.append(s).append('\n');
    }

    void table(List<String> header, List<List<String>> rows) {
        line("| " + String.join(" | ", header) + " |");
        line("|" + "---|".repeat(header.size()));
        rows.forEach(r -> line("| " + String.join(" | ", r) + " |"));
        line("");
    }

    /** Writes the report into {@code dir} and returns the file. */
    Path write(Path dir) {
        line("Load average at end: " + loadAverage());
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(name + "-" + stamp + ".md");
            Files.writeString(file, text);
            System.out.println("result file: " + file);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the result file into " + dir, e);
        }
    }

    // ------------------------------------------------------------------ statistics

    /** min / p50 / p99 / max of {@code values} (nearest rank), formatted in ms with one decimal, then the count. */
    static List<String> summary(List<Double> values) {
        if (values.isEmpty()) {
            return List.of("-", "-", "-", "-", "0");
        }
        double[] v = sorted(values);
        return List.of(ms(v[0]), ms(percentile(v, 50)), ms(percentile(v, 99)), ms(v[v.length - 1]),
                Integer.toString(v.length));
    }

    /** {@code values} in ascending order, for {@link #percentile}. */
    static double[] sorted(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    }

    static double percentile(double[] sorted, double p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static double median(List<Double> values) {
        double[] v = sorted(values);
        return v.length == 0 ? Double.NaN : percentile(v, 50);
    }

    static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    static String ms(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String num(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static double millis(long nanos) {
        return nanos / 1e6;
    }

    // ------------------------------------------------------------------ arguments

    /** {@code --key value} and {@code --flag} arguments, nothing else. */
    static final class Args {
        private final List<String> args;
        /** Every option a harness has asked for, in the order it asked: what it takes. */
        private final Set<String> asked = new LinkedHashSet<>();

        Args(String[] args) {
            this.args = new ArrayList<>(Arrays.asList(args));
        }

        boolean flag(String name) {
            asked.add("--" + name);
            return args.contains("--" + name);
        }

        String string(String name, String dflt) {
            asked.add("--" + name);
            int i = args.indexOf("--" + name);
            return i >= 0 && i + 1 < args.size() ? args.get(i + 1) : dflt;
        }

        /** {@code --out}: the folder the result file goes to, {@code modules/benchmarks/results} by default. */
        Path out() {
            return Path.of(string("out", "modules/benchmarks/results"));
        }

        /** One of {@code allowed} (the first is the default), or an error naming the value and the choices. */
        String choice(String name, String... allowed) {
            String v = string(name, allowed[0]);
            if (!Arrays.asList(allowed).contains(v)) {
                throw new IllegalArgumentException("--" + name + " must be one of " + String.join(", ", allowed)
                        + ", got '" + v + "'");
            }
            return v;
        }

        int integer(String name, int dflt) {
            return parse(name, string(name, Integer.toString(dflt)));
        }

        List<Integer> integers(String name, String dflt) {
            return Arrays.stream(string(name, dflt).split(",")).map(String::trim).map(v -> parse(name, v)).toList();
        }

        private static int parse(String name, String value) {
            try {
                return Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + name + " takes an integer, got '" + value + "'", e);
            }
        }

        List<String> strings(String name, String dflt) {
            return Arrays.stream(string(name, dflt).split(",")).map(String::trim).toList();
        }

        /**
         * The command line, once the harness has read every option it takes: an option it never asked for is an
         * error naming it and the options there are, since a misspelt one would otherwise run for minutes on its
         * default and write a result file whose command line says otherwise.
         */
        String commandLine(String mainClass) {
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                if (a.startsWith("--") && !asked.contains(a)) {
                    throw new IllegalArgumentException("unknown option " + a + "; this harness takes "
                            + String.join(", ", asked));
                }
                if (a.startsWith("--") && i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
                    i++; // its value
                } else if (!a.startsWith("--")) {
                    throw new IllegalArgumentException("unexpected argument '" + a + "': options are --name value");
                }
            }
            return "java" + jvmOptions(ManagementFactory.getRuntimeMXBean().getInputArguments()).stream()
                    .map(o -> " " + o).collect(Collectors.joining())
                    + " -cp modules/benchmarks/target/benchmarks.jar " + mainClass
                    + args.stream().map(Args::quoted).map(a -> " " + a).collect(Collectors.joining());
        }

        /**
         * The options of this JVM that change what it measures (a collector, a heap size: {@code -XX:} and
         * {@code -Xm..} / {@code -Xs..}), so that the recorded command runs the same JVM; not those naming a file of
         * this machine (a log, an agent), which would not run elsewhere.
         */
        static List<String> jvmOptions(List<String> inputArguments) {
            return inputArguments.stream()
                    .filter(o -> o.startsWith("-XX:") || o.startsWith("-Xm") || o.startsWith("-Xs"))
                    .filter(o -> !o.contains("/") && !o.contains("\\")).toList();
        }

        /** A value with blanks in single quotes, so that the command line can be pasted back into a shell. */
        private static String quoted(String arg) {
            return arg.chars().anyMatch(Character::isWhitespace) ? "'" + arg + "'" : arg;
        }
    }
}
