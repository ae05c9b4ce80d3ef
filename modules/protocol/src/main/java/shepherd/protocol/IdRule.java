package shepherd.protocol;

import java.util.Optional;

/**
 * The one rule for group, consumer and topic ids: they become znode names (and, for topics, log directories), so
 * 1 – 255 of letters, digits, {@code '.'}, {@code '_'} and {@code '-'}, not {@code "."} or {@code ".."}. The
 * coordinator refuses anything else (INVALID_REGISTRATION); the consumer and the tools check the same rule up front.
 */
public final class IdRule {
    /** The longest id. */
    public static final int LENGTH_MAX = 255;

    private IdRule() {}

    /**
     * Why {@code value} is not a valid id, phrased to follow the name of the field ({@code "is empty"},
     * {@code "'a/b' has the character '/' at index 1; …"}); empty if it is valid.
     */
    public static Optional<String> violation(String value) {
        if (value == null || value.isEmpty()) {
            return Optional.of("is empty");
        }
        if (value.length() > LENGTH_MAX) {
            return Optional.of("is " + value.length() + " characters long, more than " + LENGTH_MAX);
        }
        if (value.equals(".") || value.equals("..")) {
            return Optional.of("'" + value + "' is reserved");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!allowed(c)) {
                return Optional.of("'" + value + "' has the character '" + c + "' at index " + i
                        + "; allowed are letters, digits, '.', '_' and '-'");
            }
        }
        return Optional.empty();
    }

    /** Whether {@code c} may appear in an id. */
    public static boolean allowed(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '.' || c == '_' || c == '-';
    }
}
