package shepherd.examples.blacklist;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.ConsumerRecord;
import shepherd.consumer.MessageStream;
import shepherd.consumer.ShepherdConsumer;
import shepherd.consumer.TopicFilter;
import shepherd.examples.blacklist.Options.UsageException;

/**
 * Reads every topic except those a regular expression names, on a few streams with one thread each.
 *
 * <p>Why a wildcard subscription: the application does not list its topics. It names the ones it must not read
 * (internal topics, dead-letter queues, ...), and the coordinator, which watches the topics in ZooKeeper, evaluates
 * the pattern again whenever one is created and rebalances the group onto it. A topic created while the application
 * runs is therefore read without a restart.
 *
 * <p>Why the streams are not per topic: a wildcard subscription has one set of streams shared by every topic it
 * selects (Kafka 0.8's {@code createMessageStreamsByFilter}); the coordinator spreads all their partitions over all
 * the group's streams. A record says which topic it came from.
 *
 * <p>Offsets are committed automatically (the default): with every Ping answer, every Stop of a rebalance and the
 * Leave at shutdown, the consumer reports what the threads have taken.
 *
 * <p>What it prints on standard output: one {@code received <topic> <partition>@<offset> on stream <n>: <value>}
 * line per record, and what it is doing when it starts and stops. The consumer library's own log (warnings only,
 * see simplelogger.properties) goes to standard error.
 */
public final class BlacklistConsumerApp {
    /** How long a stop (Ctrl-C, SIGTERM) waits for the goodbye to the coordinator and the threads to finish. */
    private static final long STOP_WAIT_MS = 30_000;
    private static final int EXIT_OK = 0;
    private static final int EXIT_FAILED = 1;
    private static final int EXIT_USAGE = 2;

    private final Options options;
    private final TopicFilter filter;
    private final ShepherdConsumer consumer;
    private final PrintStream out;
    private volatile boolean stopRequested;
    private final CountDownLatch finished = new CountDownLatch(1);

    BlacklistConsumerApp(Options options, TopicFilter filter, ShepherdConsumer consumer, PrintStream out) {
        this.options = options;
        this.filter = filter;
        this.consumer = consumer;
        this.out = out;
    }

    public static void main(String[] args) {
        if (Arrays.asList(args).contains("--help")) {
            System.out.println(Options.USAGE);
            return;
        }
        BlacklistConsumerApp app;
        try {
            Options options = Options.parse(args);
            // The filter refuses a pattern that does not compile, and creating the consumer checks every setting
            // (an address, a missing root directory) while sending nothing yet: all bad input ends here.
            TopicFilter filter = TopicFilter.blacklist(options.blacklist());
            app = new BlacklistConsumerApp(options, filter, ShepherdConsumer.create(config(options)), System.out);
        } catch (UsageException | IllegalArgumentException e) {
            System.err.println("blacklist-consumer: " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(EXIT_USAGE);
            return;
        }
        // Ctrl-C and SIGTERM start the JVM's shutdown; the hook leaves the group before the JVM ends.
        Runtime.getRuntime().addShutdownHook(new Thread(app::stop, "blacklist-consumer-stop"));
        System.exit(app.run());
    }

    private static ConsumerConfig config(Options options) {
        return ConsumerConfig.builder()
                .bootstrap(options.bootstrap())
                .groupId(options.group())
                // A new group starts each partition at its first record (Kafka 0.8's default would be the end).
                .autoOffsetReset("smallest")
                .source("file", Map.of("root", options.root()))
                .build();
    }

    /** Subscribes, then reads until {@link #stop()} shuts the consumer down or its session ends; the exit code. */
    int run() {
        try {
            List<MessageStream> streams = consumer.createMessageStreamsByFilter(filter, options.streams());
            out.printf("reading every topic except /%s/ as group %s (consumer %s) on %d streams%n",
                    options.blacklist(), options.group(), consumer.config().consumerId(), streams.size());
            List<Thread> readers = new ArrayList<>();
            for (int n = 0; n < streams.size(); n++) {
                MessageStream stream = streams.get(n);
                int index = n;
                Thread reader = new Thread(() -> read(stream, index), "stream-" + n);
                reader.start();
                readers.add(reader);
            }
            for (Thread reader : readers) {
                reader.join(); // a stream ends when the consumer is shut down, or its session is over for good
            }
            if (!stopRequested) {
                out.println("the consumer session ended: " + consumer.status().termination());
                return EXIT_FAILED;
            }
            out.println("left group " + options.group());
            return EXIT_OK;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return EXIT_FAILED;
        } finally {
            consumer.close();
            finished.countDown();
        }
    }

    /** One stream's thread: the iterator blocks until a record comes, and ends once the consumer is shut down. */
    private void read(MessageStream stream, int index) {
        for (ConsumerRecord record : stream) {
            // The application's work; here it prints the record.
            out.printf("received %s %s@%d on stream %d: %s%n", record.topic(), record.partition(), record.offset(),
                    index, record.valueAsString());
        }
    }

    /**
     * Leaves the group: the consumer stops its fetchers, sends Leave with the offsets taken (auto-commit) and waits
     * for the answer, and the streams end, which ends the reading threads and {@link #run()}.
     */
    void stop() {
        if (finished.getCount() == 0) {
            return; // run() is over already: the JVM ends because the session did
        }
        stopRequested = true;
        out.println("leaving group " + options.group());
        consumer.shutdown();
        try {
            if (!finished.await(STOP_WAIT_MS, TimeUnit.MILLISECONDS)) {
                System.err.println("blacklist-consumer: did not stop within " + STOP_WAIT_MS + " ms; exiting anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
