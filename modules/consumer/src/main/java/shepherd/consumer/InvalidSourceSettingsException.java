package shepherd.consumer;

/** A partition source refused its settings: the message names the key and the offending value. */
public final class InvalidSourceSettingsException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String key;

    public InvalidSourceSettingsException(String key, String message) {
        super(message);
        this.key = key;
    }

    /** The setting at fault. */
    public String key() {
        return key;
    }
}
