package shepherd.cli.admin;

import java.util.Optional;

/**
 * The rule the coordinator applies to topic, group and consumer ids (package-private
 * {@code shepherd.coordination.Subscriptions.invalidId}): 1 – 255 of letters, digits, {@code '.'}, {@code '_'} and
 * {@code '-'}, not {@code "."} or {@code ".."}. The tools apply the same rule, so that they never create a topic the
 * coordinator would refuse to assign, nor a log directory a consumer could not name; the messages have the same form.
 */
public final class Names {
    /** The longest id, as in the coordinator. */
    public static final int ID_LENGTH_MAX = 255;

    private Names() {}

    /** Why {@code value} is no valid id, naming {@code field} and the value; empty if it is valid. */
    public static Optional<String> invalidId(String field, String value) {
        if (value == null || value.isEmpty()) {
            return Optional.of(field + " is empty");
        }
        if (value.length() > ID_LENGTH_MAX) {
            return Optional.of(field + " is " + value.length() + " characters long, more than " + ID_LENGTH_MAX);
        }
        if (value.equals(".") || value.equals("..")) {
            return Optional.of(field + " '" + value + "' is reserved");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                return Optional.of(field + " '" + value + "' has the character '" + c + "' at index " + i
                        + "; allowed are letters, digits, '.', '_' and '-'");
            }
        }
        return Optional.empty();
    }

    /** {@code value} if it is a valid id; otherwise an {@link AdminException} with the reason. */
    public static String requireValidId(String field, String value) {
        invalidId(field, value).ifPresent(reason -> {
            throw new AdminException(reason);
        });
        return value;
    }
}
