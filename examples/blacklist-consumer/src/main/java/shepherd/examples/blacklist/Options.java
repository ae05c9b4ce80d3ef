package shepherd.examples.blacklist;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of {@link BlacklistConsumerApp}: {@code --name value} pairs, checked before anything connects, so
 * a mistake ends in one clear message and the usage rather than a stack trace.
 *
 * @param bootstrap brokers to ask for the coordinator, {@code host:port[,host:port...]}
 * @param group     the consumer group
 * @param blacklist the regular expression naming the topics not to read (the whole name must match)
 * @param root      the {@code file} source's directory, {@code <root>/<topic>/<partition>.log}
 * @param streams   how many streams, each read by a thread of its own, share the partitions
 */
record Options(String bootstrap, String group, String blacklist, String root, int streams) {
    static final String USAGE = """
            usage: java -p <module path> -m shepherd.examples.blacklist \\
                     --bootstrap HOST:PORT[,HOST:PORT...] --group GROUP --blacklist REGEX --root DIR [--streams N]

              --bootstrap  brokers to ask for the coordinator, e.g. 127.0.0.1:9092
              --group      consumer group id, e.g. audit
              --blacklist  read every topic except those whose whole name matches REGEX, e.g. 'internal-.*|.*-dlq'
              --root       the file source's directory: records are read from DIR/TOPIC/PARTITION.log
              --streams    streams (and reading threads) shared by all those topics, 1-64 (default 2)
            Stop it with Ctrl-C (or SIGTERM): it leaves the group, committing what it read.""";

    static final int STREAMS_DEFAULT = 2;
    static final int STREAMS_MAX = 64;
    private static final List<String> REQUIRED = List.of("--bootstrap", "--group", "--blacklist", "--root");
    private static final List<String> KNOWN = List.of("--bootstrap", "--group", "--blacklist", "--root",
            "--streams");

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
            // A value may not start with "--"; a regular expression never needs to.
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
        return new Options(values.get("--bootstrap"), values.get("--group"), values.get("--blacklist"),
                values.get("--root"), streams(values.get("--streams")));
    }

    private static int streams(String value) throws UsageException {
        if (value == null) {
            return STREAMS_DEFAULT;
        }
        try {
            int n = Integer.parseInt(value);
            if (n >= 1 && n <= STREAMS_MAX) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below, with the value
        }
        throw new UsageException("--streams must be a whole number from 1 to " + STREAMS_MAX + ", got '" + value
                + "'");
    }
}
