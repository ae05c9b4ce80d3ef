package shepherd.protocol.internal;

/**
 * Where the reader or writer is inside a message, so an error can name the exact field, e.g.
 * {@code RegisterRequest.subscription.topics[2].topic}. Pushing and popping are two array stores, and the text is
 * built only when an error is reported, so tracking costs nothing on the normal path.
 */
final class FieldPath {
    /** The protocol nests at most two levels (Register's subscription.topics[i]); four leaves room. */
    private static final int DEPTH_MAX = 4;
    /** The index of a path step that is a struct field, not an array element. */
    static final int NO_INDEX = -1;

    private final String[] names = new String[DEPTH_MAX];
    private final int[] indexes = new int[DEPTH_MAX];
    private String struct;
    private int depth;

    FieldPath(String struct) {
        reset(struct);
    }

    void reset(String struct) {
        this.struct = struct;
        this.depth = 0;
    }

    /** Enters a nested struct field. */
    void push(String name) {
        push(name, NO_INDEX);
    }

    /** Enters element {@code index} of an array field, or the struct field {@code name} if it is {@link #NO_INDEX}. */
    void push(String name, int index) {
        if (depth == DEPTH_MAX) {
            throw new IllegalStateException("Layout nests deeper than " + DEPTH_MAX + " at " + describe(name));
        }
        names[depth] = name;
        indexes[depth] = index;
        depth++;
    }

    /** Moves the innermost step, an array element, to element {@code index}. */
    void index(int index) {
        indexes[depth - 1] = index;
    }

    void pop() {
        depth--;
    }

    /** The full name of {@code field} at the current position. */
    String describe(String field) {
        StringBuilder text = new StringBuilder(struct);
        for (int i = 0; i < depth; i++) {
            text.append('.').append(names[i]);
            if (indexes[i] != NO_INDEX) {
                text.append('[').append(indexes[i]).append(']');
            }
        }
        return field == null ? text.toString() : text.append('.').append(field).toString();
    }
}
