package shepherd.protocol;

import java.util.List;

/** Argument checks shared by the message records, so every null is reported with the field it was found in. */
final class Checks {
    private Checks() {}

    static <T> T notNull(T value, String field) {
        if (value == null) {
            throw new NullPointerException(field + " must not be null");
        }
        return value;
    }

    /** An immutable copy of a non-nullable list, rejecting null elements by index. */
    static <T> List<T> list(List<T> values, String field) {
        notNull(values, field);
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) == null) {
                throw new NullPointerException(field + "[" + i + "] must not be null");
            }
        }
        return List.copyOf(values);
    }

    /** As {@link #list}, but a null list stays null: the wire distinguishes it (count −1) from an empty one. */
    static <T> List<T> nullableList(List<T> values, String field) {
        return values == null ? null : list(values, field);
    }

    static ErrorCode anError(ErrorCode code, String field) {
        notNull(code, field);
        if (code == ErrorCode.NONE) {
            throw new IllegalArgumentException(field + ": NONE is not an error");
        }
        return code;
    }
}
