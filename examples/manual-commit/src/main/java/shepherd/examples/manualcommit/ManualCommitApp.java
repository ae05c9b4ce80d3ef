package shepherd.examples.manualcommit;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import shepherd.consumer.CommitFailedException;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.ConsumerRecord;
import shepherd.consumer.MessageStream;
import shepherd.consumer.ShepherdConsumer;
import shepherd.examples.manualcommit.Options.UsageException;

/**
 * Reads one topic, processes every record, and commits its progress itself.
 *
 * <p>Why commit by hand: with auto-commit (the default) the consumer reports what the application has <em>taken</em>
 * with every Ping answer, whether or not it has finished with it; a crash after the report loses those records for
 * this group. With auto-commit off nothing is committed until the application says so, so it commits only what it
 * has <em>processed</em>, and a crash re-delivers what came after the last commit instead of losing it: at least
 * once (docs/consumer.md, "Delivery guarantees").
 *
 * <p>Why one stream on one thread: {@link ShepherdConsumer#commitOffsets()} commits everything taken so far, on every
 * stream of the consumer. With several threads, one thread's commit would also cover records another thread has
 * taken but not yet processed. Reading and committing on the same thread makes "taken" and "processed" the same.
 *
 * <p>What it prints on standard output: one {@code processed <topic> <partition>@<offset>: <value>} line per record,
 * one {@code committed ...} line per successful commit, and what it is doing when it starts and stops. The consumer
 * library's own log (warnings only, see simplelogger.properties) goes to standard error.
 */
public final class ManualCommitApp {
    /** How long one poll waits; bounds how long a stop request waits for the loop to notice it. */
    private static final Duration POLL = Duration.ofMillis(200);
    /** How long a stop (Ctrl-C, SIGTERM) waits for the last commit and the goodbye to the coordinator. */
    private static final long STOP_WAIT_MS = 30_000;
    private static final int EXIT_OK = 0;
    private static final int EXIT_FAILED = 1;
    private static final int EXIT_USAGE = 2;

    private final Options options;
    private final PrintStream out;
    private volatile boolean running = true;
    private final CountDownLatch finished = new CountDownLatch(1);
    /** partition → the next offset to process: the application's own record of what a commit covers. */
    private final Map<String, Long> processedUpTo = new TreeMap<>();
    private int processedSinceCommit;

    ManualCommitApp(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public static void main(String[] args) {
        if (Arrays.asList(args).contains("--help")) {
            System.out.println(Options.USAGE);
            return;
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (UsageException e) {
            System.err.println("manual-commit: " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(EXIT_USAGE);
            return;
        }
        ManualCommitApp app = new ManualCommitApp(options, System.out);
        // Ctrl-C and SIGTERM start the JVM's shutdown; the hook lets the loop finish its record, commit and leave.
        Runtime.getRuntime().addShutdownHook(new Thread(app::stop, "manual-commit-stop"));
        System.exit(app.run());
    }

    /** Consumes until {@link #stop()} is called or the session ends; returns the exit code. */
    int run() {
        try {
            return consumeAndLeave();
        } finally {
            // Last: the shutdown hook waits for this, and the JVM halts once the hook returns, so everything the
            // application prints on its way out must come before it.
            finished.countDown();
        }
    }

    private int consumeAndLeave() {
        try (ShepherdConsumer consumer = ShepherdConsumer.create(config())) {
            MessageStream stream = consumer.createMessageStreams(Map.of(options.topic(), 1))
                    .get(options.topic()).get(0);
            out.printf("consuming topic %s as group %s (consumer %s), auto-commit off, committing every %d"
                    + " records%n", options.topic(), options.group(), consumer.config().consumerId(),
                    options.commitEvery());
            boolean stopped = consume(consumer, stream);
            if (!stopped) {
                // The streams end by themselves only when the session is over for good (e.g. the coordinator
                // refused the registration): say why rather than exit silently.
                out.println("the consumer session ended: " + consumer.status().termination());
                return EXIT_FAILED;
            }
            if (processedSinceCommit > 0) {
                commit(consumer); // auto-commit is off: the Leave that close() sends carries no offsets
            }
            out.println("leaving group " + options.group());
        } catch (IllegalArgumentException e) {
            // InvalidConsumerConfigException, InvalidSourceSettingsException: a setting named on the command line.
            System.err.println("manual-commit: " + e.getMessage());
            System.err.println(Options.USAGE);
            return EXIT_USAGE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return EXIT_FAILED;
        }
        out.println("left group " + options.group());
        return EXIT_OK;
    }

    private ConsumerConfig config() {
        return ConsumerConfig.builder()
                .bootstrap(options.bootstrap())
                .groupId(options.group())
                .autoCommit(false)
                // A new group starts each partition at its first record (Kafka 0.8's default would be the end).
                .autoOffsetReset("smallest")
                .source("file", Map.of("root", options.root()))
                .build();
    }

    /** Takes, processes and commits until stopped (true) or until the stream ends under it (false). */
    private boolean consume(ShepherdConsumer consumer, MessageStream stream) throws InterruptedException {
        while (running) {
            ConsumerRecord record = stream.poll(POLL);
            if (record == null) {
                if (stream.ended()) {
                    return false;
                }
                continue; // nothing yet: poll again, so a stop request is seen within POLL
            }
            process(record);
            processedUpTo.put(record.partition(), record.offset() + 1);
            if (++processedSinceCommit >= options.commitEvery()) {
                commit(consumer);
            }
        }
        return true;
    }

    /** The application's work. Here it prints the record; whatever it does must be done before the next commit. */
    private void process(ConsumerRecord record) {
        out.printf("processed %s %s@%d: %s%n", record.topic(), record.partition(), record.offset(),
                record.valueAsString());
    }

    /**
     * Commits everything processed so far and waits until the coordinator has written it. A refusal loses nothing:
     * the offsets stay taken and the next commit carries them; if a partition moved to another member meanwhile,
     * that member starts from the last commit and re-delivers the rest (at least once).
     */
    private void commit(ShepherdConsumer consumer) {
        try {
            consumer.commitOffsets();
            processedSinceCommit = 0;
            out.println("committed " + options.topic() + ", next offsets " + describe(processedUpTo));
        } catch (CommitFailedException e) {
            out.println("commit refused (" + e.error() + ": " + e.getMessage() + "); the next commit retries");
        }
    }

    private static String describe(Map<String, Long> nextOffsets) {
        StringBuilder text = new StringBuilder();
        nextOffsets.forEach((partition, next) -> text.append(text.isEmpty() ? "" : " ").append(partition)
                .append('=').append(next));
        return text.toString();
    }

    /** Asks the loop to stop, then waits until it has committed and left the group (bounded). */
    void stop() {
        running = false;
        try {
            if (!finished.await(STOP_WAIT_MS, TimeUnit.MILLISECONDS)) {
                System.err.println("manual-commit: did not stop within " + STOP_WAIT_MS + " ms; exiting anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
