package shepherd.coordination.assign;

/** Parsing shared by the id records. */
final class Ids {
    private Ids() {}

    /**
     * The value of {@code text[from, to)} if it is a canonical non-negative decimal {@code int} (digits only, no sign,
     * no leading zero unless the number is 0), else −1. Canonical only, so that {@code parse(s).toString()}
     * gives back {@code s}: the coordinator compares these strings with the owners it reads from ZooKeeper.
     */
    static int canonicalNonNegativeInt(String text, int from, int to) {
        int length = to - from;
        if (length <= 0 || length > 10 || (length > 1 && text.charAt(from) == '0')) {
            return -1;
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value > Integer.MAX_VALUE ? -1 : (int) value;
    }

    static void requireNonNegative(int value, String field) {
        if (value < 0) {
            throw new IllegalArgumentException(field + " must be >= 0, was " + value);
        }
    }
}
