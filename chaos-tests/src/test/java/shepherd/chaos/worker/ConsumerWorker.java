package shepherd.chaos.worker;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import shepherd.chaos.history.Entry;
import shepherd.chaos.history.HistoryCodec;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.ConsumerEvent;
import shepherd.consumer.ConsumerRecord;
import shepherd.consumer.MessageStream;
import shepherd.consumer.ShepherdConsumer;

/**
 * One consumer of a chaos run, as its own process (so it can be paused with SIGSTOP and killed with SIGKILL):
 * the real consumer library on the {@code file} source, every fetch start and stop, rejected command and taken
 * record appended to its history file with {@link System#nanoTime()} — one monotonic clock for every process of the
 * machine, so the run can merge the files. It shuts down gracefully (Leave) when its standard input closes.
 *
 * <p>Arguments are {@code key=value}: {@code id}, {@code group}, {@code bootstrap} (host:port,…), {@code root} (the
 * file source's root), {@code topic}, {@code streams}, {@code history} (file), {@code pingIntervalMs},
 * {@code maxPingRetries}. Broker host names resolve through {@code -Djdk.net.hosts.file}, which is how each worker
 * reaches the brokers through its own proxies.
 */
public final class ConsumerWorker {
    private final Map<String, String> args;
    private final BufferedWriter history;
    private final String group;
    private final String id;

    private ConsumerWorker(Map<String, String> args) throws IOException {
        this.args = args;
        this.group = arg("group");
        this.id = arg("id");
        this.history = Files.newBufferedWriter(Path.of(arg("history")), StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (String a : argv) {
            int eq = a.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got: " + a);
            }
            args.put(a.substring(0, eq), a.substring(eq + 1));
        }
        new ConsumerWorker(args).run();
    }

    private String arg(String key) {
        String v = args.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing argument " + key + "=…, got " + args.keySet());
        }
        return v;
    }

    private void run() throws Exception {
        ConsumerConfig config = ConsumerConfig.builder()
                .bootstrap(arg("bootstrap"))
                .groupId(group)
                // every record must reach the group: a partition without a committed offset starts at its first
                .autoOffsetReset("smallest")
                .consumerId(id)
                .pingIntervalMs(Integer.parseInt(arg("pingIntervalMs")))
                .maxPingRetries(Integer.parseInt(arg("maxPingRetries")))
                .backoffMs(50, 500)
                .requestTimeoutMs(1_000)
                .source("file", Map.of("root", arg("root")))
                .listener(this::onEvent)
                .build();
        ShepherdConsumer consumer = ShepherdConsumer.create(config);
        List<MessageStream> streams = consumer.createMessageStreams(
                Map.of(arg("topic"), Integer.parseInt(arg("streams")))).get(arg("topic"));
        List<Thread> takers = new ArrayList<>();
        for (MessageStream stream : streams) {
            Thread t = new Thread(() -> take(stream), "taker-" + takers.size());
            t.setDaemon(true);
            t.start();
            takers.add(t);
        }
        System.out.println("worker " + id + " started");
        awaitStdinClosed(System.in);
        consumer.shutdown();
        for (Thread t : takers) {
            t.join(5_000);
        }
        System.out.println("worker " + id + " shut down");
        synchronized (history) {
            history.close();
        }
    }

    private void take(MessageStream stream) {
        try {
            while (!stream.ended()) {
                ConsumerRecord r = stream.poll(Duration.ofMillis(200));
                if (r != null) {
                    record(new Entry.Delivered(System.nanoTime(), group, id, r.topic(), r.partition(), r.offset(),
                            r.generation()));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void onEvent(ConsumerEvent e) {
        switch (e.kind()) {
            case FETCH_STARTED -> record(new Entry.FetchStarted(e.nanoTime(), group, id, e.topic(), e.partition(),
                    e.epoch(), e.generation(), e.offset()));
            case FETCH_STOPPED -> record(new Entry.FetchStopped(e.nanoTime(), group, id, e.topic(), e.partition(),
                    e.epoch(), e.generation(), e.offset()));
            case COMMAND_REJECTED -> record(new Entry.Rejected(e.nanoTime(), group, id, e.detail(), e.epoch(),
                    e.error().name()));
            case STATE_CHANGED -> { } // the session's own story; the broker logs tell the rest
        }
    }

    private void record(Entry entry) {
        synchronized (history) {
            try {
                HistoryCodec.append(history, entry);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot append to history " + arg("history"), e);
            }
        }
    }

    private static void awaitStdinClosed(InputStream in) throws IOException {
        byte[] buf = new byte[64];
        while (in.read(buf) >= 0) {
            // anything written is ignored: only the end of input means "shut down"
        }
    }
}
