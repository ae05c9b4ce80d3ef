package shepherd.chaos.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The entries of a run, appended from many threads, read merged in {@code nanoTime} order. */
public final class History {
    private final List<Entry> entries = new ArrayList<>();

    public synchronized void add(Entry entry) {
        entries.add(entry);
    }

    /** Every entry, ordered by time (stable for equal times: the order they were added in). */
    public synchronized List<Entry> entries() {
        List<Entry> out = new ArrayList<>(entries);
        out.sort(Comparator.comparingLong(Entry::nanoTime));
        return out;
    }

    /** The entries of one kind, in time order. */
    public <T extends Entry> List<T> of(Class<T> type) {
        return entries().stream().filter(type::isInstance).map(type::cast).toList();
    }

    public static History of(List<? extends Entry> entries) {
        History h = new History();
        entries.forEach(h::add);
        return h;
    }
}
