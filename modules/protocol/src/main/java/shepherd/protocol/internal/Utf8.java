package shepherd.protocol.internal;

/**
 * UTF-8 length of Java strings. The length is computed by hand, so measuring allocates nothing and an unpaired
 * surrogate is an error rather than the '?' that {@code String.getBytes} would silently send (which would not decode
 * back to the same string); a string it accepted is then exactly encoded by {@code getBytes}.
 */
final class Utf8 {
    private Utf8() {}

    /** Encoded length in bytes, or {@code -1 - i} when the char at {@code i} is an unpaired surrogate. */
    static long length(String s) {
        int ascii = 0;
        while (ascii < s.length() && s.charAt(ascii) < 0x80) {
            ascii++; // most ids and topics: a tight loop the JIT compiles well, before the general one
        }
        long bytes = ascii;
        for (int i = ascii; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (isPairAt(s, i)) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                return -1 - i;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    private static boolean isPairAt(String s, int i) {
        return Character.isHighSurrogate(s.charAt(i)) && i + 1 < s.length()
                && Character.isLowSurrogate(s.charAt(i + 1));
    }
}
