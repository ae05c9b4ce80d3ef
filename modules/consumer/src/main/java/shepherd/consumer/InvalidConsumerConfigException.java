package shepherd.consumer;

/** A consumer setting is missing or out of range: the message names the setting and the offending value. */
public final class InvalidConsumerConfigException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String setting;

    public InvalidConsumerConfigException(String setting, String message) {
        super(setting + ": " + message);
        this.setting = setting;
    }

    /** The setting at fault, as the builder method names it. */
    public String setting() {
        return setting;
    }
}
