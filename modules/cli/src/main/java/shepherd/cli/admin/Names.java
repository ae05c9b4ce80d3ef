package shepherd.cli.admin;

import java.util.Optional;
import shepherd.protocol.IdRule;

/**
 * The rule the coordinator applies to topic, group and consumer ids ({@link IdRule}): 1 – 255 of letters, digits,
 * {@code '.'}, {@code '_'} and {@code '-'}, not {@code "."} or {@code ".."}. The tools apply the same rule, so that they never create a topic the
 * coordinator would refuse to assign, nor a log directory a consumer could not name; the messages have the same form.
 */
public final class Names {
    private Names() {}

    /** Why {@code value} is no valid id, naming {@code field} and the value; empty if it is valid. */
    public static Optional<String> invalidId(String field, String value) {
        return IdRule.violation(value).map(reason -> field + " " + reason);
    }

    /** {@code value} if it is a valid id; otherwise an {@link AdminException} with the reason. */
    public static String requireValidId(String field, String value) {
        invalidId(field, value).ifPresent(reason -> {
            throw new AdminException(reason);
        });
        return value;
    }
}
