package shepherd.cli.demo;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.ConsumerRecord;
import shepherd.consumer.ConsumerStatus;
import shepherd.consumer.MessageStream;
import shepherd.consumer.ShepherdConsumer;
import shepherd.consumer.TopicFilter;

/**
 * One consumer of the demo and its application thread, which takes records and writes each into the
 * {@link DeliveryLog}. A member subscribes either to the topic by name (static streams) or through a whitelist
 * pattern ({@code createMessageStreamsByFilter}).
 */
final class Member {
    /** How a member subscribes. */
    sealed interface Subscription {
        record Static(String topic) implements Subscription {}

        record Whitelist(String regex) implements Subscription {}
    }

    enum Fate { RUNNING, LEFT, KILLED }

    private static final Duration POLL = Duration.ofMillis(100);

    final String group;
    final String id;
    private final ShepherdConsumer consumer;
    private final DeliveryLog log;
    private final Thread app;
    private volatile boolean running = true;
    private volatile Fate fate = Fate.RUNNING;

    private Member(String group, String id, ShepherdConsumer consumer, MessageStream stream, DeliveryLog log) {
        this.group = group;
        this.id = id;
        this.consumer = consumer;
        this.log = log;
        this.app = new Thread(() -> consume(stream), "demo-app-" + id);
        this.app.setDaemon(true);
    }

    static Member start(ConsumerConfig config, Subscription subscription, DeliveryLog log) {
        ShepherdConsumer consumer = ShepherdConsumer.create(config);
        try {
            MessageStream stream;
            if (subscription instanceof Subscription.Static s) {
                stream = consumer.createMessageStreams(Map.of(s.topic(), 1)).get(s.topic()).get(0);
            } else {
                Subscription.Whitelist w = (Subscription.Whitelist) subscription;
                stream = consumer.createMessageStreamsByFilter(TopicFilter.whitelist(w.regex()), 1).get(0);
            }
            Member member = new Member(config.groupId(), config.consumerId(), consumer, stream, log);
            member.app.start();
            return member;
        } catch (RuntimeException e) {
            consumer.halt();
            throw e;
        }
    }

    private void consume(MessageStream stream) {
        try {
            while (running) {
                ConsumerRecord r = stream.poll(POLL);
                if (r == null) {
                    continue;
                }
                boolean intact = r.valueAsString().equals(r.partition() + ":" + r.offset());
                log.record(group, id, r.topic() + "/" + r.partition(), r.offset(), r.generation(), intact);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    ConsumerStatus status() {
        return consumer.status();
    }

    Fate fate() {
        return fate;
    }

    boolean alive() {
        return fate == Fate.RUNNING;
    }

    /** Leaves the group gracefully: Leave with the final offsets, then close. */
    void shutdown() throws InterruptedException {
        if (fate != Fate.RUNNING) {
            return;
        }
        fate = Fate.LEFT;
        consumer.shutdown();
        stopApp();
    }

    /** Dies like a killed process: no Leave, uncommitted offsets lost. */
    void kill() throws InterruptedException {
        if (fate != Fate.RUNNING) {
            return;
        }
        fate = Fate.KILLED;
        running = false; // a killed process takes nothing more, even what is still queued
        consumer.halt();
        stopApp();
    }

    private void stopApp() throws InterruptedException {
        running = false;
        app.interrupt();
        app.join(2_000);
    }

    @Override
    public String toString() {
        return id;
    }

    static List<String> ids(List<Member> members) {
        return members.stream().map(m -> m.id).toList();
    }
}
