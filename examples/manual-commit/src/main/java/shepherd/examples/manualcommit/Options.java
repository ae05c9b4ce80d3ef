package shepherd.examples.manualcommit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of {@link ManualCommitApp}: {@code --name value} pairs, checked before anything connects, so a
 * mistake ends in one clear message and the usage rather than a stack trace.
 *
 * @param bootstrap   brokers to ask for the coordinator, {@code host:port[,host:port...]}
 * @param group       the consumer group
 * @param topic       the one topic read
 * @param root        the {@code file} source's directory, {@code <root>/<topic>/<partition>.log}
 * @param commitEvery how many processed records make a commit
 */
record Options(String bootstrap, String group, String topic, String root, int commitEvery) {
    static final String USAGE = """
            usage: java -p <module path> -m shepherd.examples.manualcommit \\
                     --bootstrap HOST:PORT[,HOST:PORT...] --group GROUP --topic TOPIC --root DIR [--commit-every N]

              --bootstrap     brokers to ask for the coordinator, e.g. 127.0.0.1:9092
              --group         consumer group id, e.g. billing
              --topic         the topic to read, e.g. orders
              --root          the file source's directory: records are read from DIR/TOPIC/PARTITION.log
              --commit-every  commit after every N processed records (default 100), and when stopped
            Stop it with Ctrl-C (or SIGTERM): it commits what it processed and leaves the group.""";

    static final int COMMIT_EVERY_DEFAULT = 100;
    private static final List<String> REQUIRED = List.of("--bootstrap", "--group", "--topic", "--root");
    private static final List<String> KNOWN = List.of("--bootstrap", "--group", "--topic", "--root",
            "--commit-every");

    /** A command line that cannot run; the message says why. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    static Options parse(String... args) throws UsageException {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i];
            if (!KNOWN.contains(name)) {
                throw new UsageException("unknown option '" + name + "'");
            }
            if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
                throw new UsageException("option " + name + " needs a value");
            }
            if (values.put(name, args[i + 1]) != null) {
                throw new UsageException("option " + name + " is given twice");
            }
        }
        List<String> missing = REQUIRED.stream().filter(name -> !values.containsKey(name)).toList();
        if (!missing.isEmpty()) {
            throw new UsageException("missing " + String.join(", ", missing));
        }
        return new Options(values.get("--bootstrap"), values.get("--group"), values.get("--topic"),
                values.get("--root"), commitEvery(values.get("--commit-every")));
    }

    private static int commitEvery(String value) throws UsageException {
        if (value == null) {
            return COMMIT_EVERY_DEFAULT;
        }
        try {
            int n = Integer.parseInt(value);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below, with the value
        }
        throw new UsageException("--commit-every must be a whole number of at least 1, got '" + value + "'");
    }
}
