package shepherd.cli.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What happened, in order, stamped with the time since the demo started: the script's events, what the monitor saw
 * the cluster do (elections, role changes, rebalances) and the demo's own phases. Thread-safe; a listener (the plain
 * printer) hears of each entry as it is added.
 */
final class Timeline {
    enum Kind {
        /** The demo itself: phases, set-up, drain. */
        DEMO,
        /** A scripted event the demo caused. */
        SCRIPT,
        /** A broker changed role or epoch. */
        CLUSTER,
        /** A group settled on a new generation. */
        REBALANCE,
        /** Throughput now and then. */
        PROGRESS
    }

    record Entry(long atMs, Kind kind, String text) {
        String format() {
            return String.format("[%s] %-9s %s", stamp(atMs), kind.name().toLowerCase(), text);
        }
    }

    private final long startNanos;
    private final List<Entry> entries = new ArrayList<>();
    private volatile Consumer<Entry> listener = e -> {};

    Timeline(long startNanos) {
        this.startNanos = startNanos;
    }

    void listen(Consumer<Entry> listener) {
        this.listener = listener;
    }

    long nowMs() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    long msAt(long nanos) {
        return (nanos - startNanos) / 1_000_000;
    }

    Entry add(Kind kind, String text) {
        return add(nowMs(), kind, text);
    }

    Entry add(long atMs, Kind kind, String text) {
        Entry entry = new Entry(atMs, kind, text);
        synchronized (entries) {
            entries.add(entry);
        }
        listener.accept(entry);
        return entry;
    }

    /** The last {@code n} entries of the given kinds, oldest first. */
    List<Entry> last(int n, List<Kind> kinds) {
        List<Entry> out = new ArrayList<>();
        synchronized (entries) {
            for (int i = entries.size() - 1; i >= 0 && out.size() < n; i--) {
                if (kinds.contains(entries.get(i).kind())) {
                    out.add(0, entries.get(i));
                }
            }
        }
        return out;
    }

    /** {@code mm:ss.SSS} since the start. */
    static String stamp(long ms) {
        return String.format("%02d:%02d.%03d", ms / 60_000, (ms / 1000) % 60, ms % 1000);
    }
}
