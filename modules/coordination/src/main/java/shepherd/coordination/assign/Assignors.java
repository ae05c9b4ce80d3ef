package shepherd.coordination.assign;

import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The installed assignors by name, found once with {@link ServiceLoader} (this module {@code uses}
 * {@link Assignor}; it {@code provides} {@code range}, {@code roundrobin} and {@code sticky} itself, and any module
 * on the module path may provide more).
 */
public final class Assignors {
    /** The assignor of a group that names none: Kafka 0.8's default. */
    public static final String DEFAULT_NAME = RangeAssignor.NAME;

    private Assignors() {}

    /** Loaded on first use; ServiceLoader is not thread-safe, the holder idiom makes this load happen once. */
    private static final class Installed {
        static final SortedMap<String, Assignor> BY_NAME = index(ServiceLoader.load(Assignor.class));
    }

    /**
     * The installed assignor called {@code name}.
     *
     * @throws UnknownAssignorException listing the installed names, if there is none by that name
     */
    public static Assignor byName(String name) {
        Objects.requireNonNull(name, "assignor name must not be null");
        Assignor assignor = Installed.BY_NAME.get(name);
        if (assignor == null) {
            throw new UnknownAssignorException(name, names());
        }
        return assignor;
    }

    /** The installed assignor called {@code name}, if any. */
    public static Optional<Assignor> find(String name) {
        return Optional.ofNullable(Installed.BY_NAME.get(Objects.requireNonNull(name, "assignor name")));
    }

    /** The names of the installed assignors, sorted. */
    public static SortedSet<String> names() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(Installed.BY_NAME.keySet()));
    }

    /** The {@link #DEFAULT_NAME} assignor. */
    public static Assignor defaultAssignor() {
        return byName(DEFAULT_NAME);
    }

    /** Indexes providers by name; two with one name would make a group's choice ambiguous, so that fails loudly. */
    static SortedMap<String, Assignor> index(Iterable<? extends Assignor> providers) {
        SortedMap<String, Assignor> byName = new TreeMap<>();
        for (Assignor assignor : providers) {
            Assignor previous = byName.putIfAbsent(assignor.name(), assignor);
            if (previous != null) {
                throw new IllegalStateException("two assignors are named \"" + assignor.name() + "\": "
                        + previous.getClass().getName() + " and " + assignor.getClass().getName());
            }
        }
        return Collections.unmodifiableSortedMap(byName);
    }
}
