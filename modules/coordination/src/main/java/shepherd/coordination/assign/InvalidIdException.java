package shepherd.coordination.assign;

/**
 * A partition or stream id that does not have the form DESIGN §1 gives it. The coordinator reads these strings from
 * ZooKeeper and from registrations; garbage there is reported with the offending value, never guessed at.
 */
public final class InvalidIdException extends IllegalArgumentException {
    private final String kind;
    private final String value;

    InvalidIdException(String kind, String value, String expected) {
        super("invalid " + kind + " \"" + value + "\": expected " + expected);
        this.kind = kind;
        this.value = value;
    }

    /** {@code "partition id"} or {@code "stream id"}. */
    public String kind() {
        return kind;
    }

    /** The rejected text, exactly as given. */
    public String value() {
        return value;
    }
}
