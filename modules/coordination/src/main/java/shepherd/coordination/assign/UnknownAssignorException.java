package shepherd.coordination.assign;

import java.util.SortedSet;

/**
 * A group asked for an assignor that is not installed. The coordinator answers the registration with
 * INVALID_REGISTRATION and this message, which lists the names it would have accepted.
 */
public final class UnknownAssignorException extends IllegalArgumentException {
    private final String name;
    private final SortedSet<String> knownNames;

    UnknownAssignorException(String name, SortedSet<String> knownNames) {
        super("unknown assignor \"" + name + "\"; known assignors: " + String.join(", ", knownNames));
        this.name = name;
        this.knownNames = knownNames;
    }

    /** The name that was asked for. */
    public String name() {
        return name;
    }

    /** The names of the installed assignors, sorted. */
    public SortedSet<String> knownNames() {
        return knownNames;
    }
}
