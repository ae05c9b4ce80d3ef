package shepherd.zookeeper;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import shepherd.coordination.CoordinatorEvent;

/**
 * One adapter's event queue as the tests see it: every event in order, tagged with the adapter's session at the time
 * it was enqueued, and a wait on a condition (never a sleep).
 */
final class EventLog {
    record Entry(CoordinatorEvent event, long sessionId) {}

    private final List<Entry> entries = new ArrayList<>();
    private LongSupplier session = () -> 0;

    void tagWith(LongSupplier currentSession) {
        this.session = currentSession;
    }

    synchronized void accept(CoordinatorEvent event) {
        entries.add(new Entry(event, session.getAsLong()));
        notifyAll();
    }

    synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    synchronized List<CoordinatorEvent> events() {
        return entries.stream().map(Entry::event).toList();
    }

    <T extends CoordinatorEvent> List<T> all(Class<T> type) {
        return events().stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** Waits until an event of {@code type} matching {@code condition} appears at index ≥ {@code from}. */
    synchronized <T extends CoordinatorEvent> T await(Class<T> type, int from, Predicate<T> condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (true) {
            for (int i = from; i < entries.size(); i++) {
                CoordinatorEvent e = entries.get(i).event();
                if (type.isInstance(e) && condition.test(type.cast(e))) {
                    return type.cast(e);
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no " + type.getSimpleName() + " after index " + from + " in " + events());
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    <T extends CoordinatorEvent> T await(Class<T> type) throws InterruptedException {
        return await(type, 0, e -> true);
    }

    synchronized int size() {
        return entries.size();
    }

    synchronized int indexOf(CoordinatorEvent event) {
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).event() == event) {
                return i;
            }
        }
        return -1;
    }
}
