package shepherd.broker;

/**
 * A broker setting that cannot be used. The message names the key, the offending value and what is allowed, so an
 * operator can fix the file or the flag without reading code; {@link #key()} lets a launcher point at the flag.
 */
public final class InvalidConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final String value;

    public InvalidConfigException(String key, String value, String message) {
        super(message);
        this.key = key;
        this.value = value;
    }

    /** The offending key, e.g. {@code session.timeout.ms}. */
    public String key() {
        return key;
    }

    /** The value as given (null when the key was missing). */
    public String value() {
        return value;
    }
}
