package shepherd.benchmarks.e2e;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import shepherd.consumer.ConsumerConfig;
import shepherd.consumer.ConsumerEvent;
import shepherd.consumer.ShepherdConsumer;

/**
 * Real consumers ({@link ShepherdConsumer}) in this JVM, and what their {@link ConsumerEvent}s say, stamped by each
 * consumer with {@link System#nanoTime()} when it happened: when it registered, when it stopped, and when it
 * started fetching which generation of which epoch. "Stable" means every member of a group fetches the same
 * generation: each one applied the Start of that generation, which the coordinator sends only after the fenced
 * multi with the new owners committed — so it also means "ownership written".
 */
final class Members {
    /** One consumer's story, as far as the harness needs it. */
    private static final class Story {
        String state = "NEW";
        int epoch = -1;
        int generation = -1;
        long registeredNanos = Long.MIN_VALUE;
        /** (epoch << 32 | generation) → when it applied that Start (its fetcher threads spin up just after). */
        final Map<Long, Long> startedNanos = new HashMap<>();
        final Stamps stoppedNanos = new Stamps();
    }

    private final Map<String, Story> stories = new HashMap<>();
    private final Map<String, ShepherdConsumer> consumers = new LinkedHashMap<>();
    private final Supplier<List<InetSocketAddress>> bootstrap;
    private final int pingIntervalMs;
    private final int maxPingRetries;

    Members(Supplier<List<InetSocketAddress>> bootstrap, int pingIntervalMs, int maxPingRetries) {
        this.bootstrap = bootstrap;
        this.pingIntervalMs = pingIntervalMs;
        this.maxPingRetries = maxPingRetries;
    }

    long leaseMs() {
        return (long) pingIntervalMs * (maxPingRetries + 1);
    }

    /** Starts consumer {@code id} of {@code group}, one stream on {@code topic}; returns at once. */
    synchronized ShepherdConsumer start(String group, String id, String topic) {
        stories.put(id, new Story());
        ConsumerConfig config = ConsumerConfig.builder()
                .bootstrap(bootstrap.get())
                .groupId(group)
                .consumerId(id)
                .autoCommit(false)
                .pingIntervalMs(pingIntervalMs)
                .maxPingRetries(maxPingRetries)
                .backoffMs(20, 500)
                .source(new IdleSource(), Map.of())
                .listener(event -> record(id, event))
                .build();
        ShepherdConsumer consumer = ShepherdConsumer.create(config);
        consumers.put(id, consumer);
        consumer.createMessageStreams(Map.of(topic, 1));
        return consumer;
    }

    /** Leaves with a goodbye (Leave). */
    void shutdown(String id) {
        ShepherdConsumer c;
        synchronized (this) {
            c = consumers.remove(id);
        }
        c.shutdown();
    }

    /** Drops out as a killed process does: connection closed, no Leave. */
    void halt(String id) {
        ShepherdConsumer c;
        synchronized (this) {
            c = consumers.remove(id);
        }
        c.halt();
    }

    void closeAll() {
        List<ShepherdConsumer> all;
        synchronized (this) {
            all = new ArrayList<>(consumers.values());
            consumers.clear();
        }
        all.forEach(ShepherdConsumer::halt);
    }

    private synchronized void record(String id, ConsumerEvent e) {
        Story s = stories.get(id);
        if (s == null) {
            return;
        }
        if (e.kind() == ConsumerEvent.Kind.STATE_CHANGED) {
            String to = e.detail().substring(e.detail().indexOf("->") + 2);
            String from = e.detail().substring(0, e.detail().indexOf("->"));
            s.state = to;
            if (to.equals("REGISTERED")) {
                s.registeredNanos = e.nanoTime();
            } else if (to.equals("FETCHING")) {
                s.epoch = e.epoch();
                s.generation = e.generation();
                s.startedNanos.merge(key(e.epoch(), e.generation()), e.nanoTime(), Math::max);
            }
            if (to.equals("STOPPED") || from.equals("FETCHING")) {
                s.stoppedNanos.add(e.nanoTime()); // a Stop, or the lease or connection lost while fetching
            }
            // Only a state change can make a group stable: waking the waiter for each of the thousands of fetch
            // events of a rebalance cost the harness a core's milliseconds, taken from what it measures.
            notifyAll();
        }
    }

    private static long key(int epoch, int generation) {
        return ((long) epoch << 32) | (generation & 0xffffffffL);
    }

    /** A group's members all fetch one generation: which, and when the last of them started it. */
    record Stable(int epoch, int generation, long lastStartedNanos) {}

    /**
     * Waits until every one of {@code ids} fetches the same generation, above {@code afterGeneration} (or of an
     * epoch above {@code afterEpoch}).
     */
    synchronized Stable awaitStable(Collection<String> ids, int afterEpoch, int afterGeneration, long timeoutMs)
            throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        while (true) {
            Stable stable = stableNow(ids, afterEpoch, afterGeneration);
            if (stable != null) {
                return stable;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                StringBuilder why = new StringBuilder();
                ids.forEach(id -> {
                    Story s = stories.get(id);
                    why.append(' ').append(id).append('=').append(s.state).append("/e").append(s.epoch).append("/g")
                            .append(s.generation);
                });
                throw new TimeoutException("not stable within " + timeoutMs + " ms:" + why);
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    private Stable stableNow(Collection<String> ids, int afterEpoch, int afterGeneration) {
        int epoch = -1;
        int generation = -1;
        long last = Long.MIN_VALUE;
        for (String id : ids) {
            Story s = stories.get(id);
            if (s == null || !s.state.equals("FETCHING")) {
                return null;
            }
            if (epoch == -1) {
                epoch = s.epoch;
                generation = s.generation;
            } else if (s.epoch != epoch || s.generation != generation) {
                return null;
            }
            last = Math.max(last, s.startedNanos.getOrDefault(key(s.epoch, s.generation), Long.MIN_VALUE));
        }
        if (epoch < afterEpoch || epoch == afterEpoch && generation <= afterGeneration) {
            return null;
        }
        return new Stable(epoch, generation, last);
    }

    /** The broker consumer {@code id} is registered with, as it says; −1 if none. */
    synchronized int coordinatorOf(String id) {
        return consumers.get(id).status().coordinatorId();
    }

    /** When {@code id} last became REGISTERED. */
    synchronized long registeredNanos(String id) {
        return stories.get(id).registeredNanos;
    }

    /** The latest stop of any of {@code ids} at or after {@code sinceNanos}. */
    synchronized OptionalLong lastStopSince(Collection<String> ids, long sinceNanos) {
        return ids.stream().map(id -> stories.get(id).stoppedNanos.lastSince(sinceNanos))
                .flatMapToLong(OptionalLong::stream).reduce((x, y) -> x - y >= 0 ? x : y);
    }

    /** When the first of {@code ids} applied the Start of {@code stable}'s generation. */
    synchronized long firstStartedNanos(Collection<String> ids, Stable stable) {
        return ids.stream().map(stories::get)
                .mapToLong(s -> s.startedNanos.getOrDefault(key(stable.epoch(), stable.generation()), Long.MAX_VALUE))
                .min().orElseThrow();
    }

    /** The earliest stop (FETCHING → STOPPED, or out of FETCHING) of any of {@code ids} at or after {@code sinceNanos}. */
    synchronized OptionalLong firstStopSince(Collection<String> ids, long sinceNanos) {
        return ids.stream().map(id -> stories.get(id).stoppedNanos.firstSince(sinceNanos))
                .flatMapToLong(OptionalLong::stream).reduce((x, y) -> x - y <= 0 ? x : y);
    }
}
