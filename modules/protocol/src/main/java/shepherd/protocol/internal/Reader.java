package shepherd.protocol.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import shepherd.protocol.ErrorCode;

/**
 * Strict, bounded reading of the protocol's types, big-endian. Every read first checks that its bytes are there;
 * every length and count is checked against the remaining bytes before anything is allocated, so no input can make
 * the reader allocate more than the frame it was given. Any violation is a {@link Malformed} naming the field (with
 * its path) and the offending value.
 *
 * <p>Reads straight from the frame's bytes (the buffer's own array, or one copy of a buffer without one) with an
 * index of its own: a {@code ByteBuffer}'s per-read position and limit bookkeeping would be a third of decoding a
 * Start of 1,024 partitions. Topic names, which repeat from element to element, are read through a
 * small cache of recent strings ({@link #topic}).
 */
public final class Reader {
    /** Longest piece of a bad string value quoted in a reason: enough to recognise it, never the 32 KiB of it. */
    private static final int QUOTED_CHARS_MAX = 40;
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;
    /** Recent topic names remembered, a power of two: a Start's partitions come topic by topic. */
    private static final int TOPICS_REMEMBERED = 16;

    private final byte[] bytes;
    private final int end;
    private int pos;
    private final FieldPath path;
    private CharsetDecoder utf8;
    private String[] topics;
    private byte[][] topicBytes;

    /** Reads from {@code in}'s position to its limit; {@code in} itself is left as it is. */
    public Reader(ByteBuffer in, String struct) {
        if (in.hasArray()) {
            this.bytes = in.array(); // read in place: no copy before the strings' own
            this.pos = in.arrayOffset() + in.position();
        } else {
            this.bytes = new byte[in.remaining()];
            in.get(in.position(), bytes);
            this.pos = 0;
        }
        this.end = pos + in.remaining();
        this.path = new FieldPath(struct);
    }

    /** Starts reading a new top-level struct, so errors name it. */
    public void enter(String struct) {
        path.reset(struct);
    }

    public byte int8(String field) throws Malformed {
        need(field, Byte.BYTES, "int8");
        return bytes[pos++];
    }

    public short int16(String field) throws Malformed {
        need(field, Short.BYTES, "int16");
        short value = (short) SHORT.get(bytes, pos);
        pos += Short.BYTES;
        return value;
    }

    public int int32(String field) throws Malformed {
        need(field, Integer.BYTES, "int32");
        int value = (int) INT.get(bytes, pos);
        pos += Integer.BYTES;
        return value;
    }

    public long int64(String field) throws Malformed {
        need(field, Long.BYTES, "int64");
        long value = (long) LONG.get(bytes, pos);
        pos += Long.BYTES;
        return value;
    }

    public boolean bool(String field) throws Malformed {
        byte value = int8(field);
        if (value != 0 && value != 1) {
            throw fail(field, "bool must be 0 or 1, got " + value);
        }
        return value == 1;
    }

    /** A non-nullable string: int16 byte length, then that many bytes of valid UTF-8. */
    public String string(String field) throws Malformed {
        return utf8(field, stringLength(field, false));
    }

    /**
     * A non-nullable string that is a topic name: as {@link #string}, but a name equal to one of the last few read
     * is that same {@code String} again (a Start of 1,024 partitions of a few topics allocates a few names, not
     * 1,024).
     */
    public String topic(String field) throws Malformed {
        int length = stringLength(field, false);
        int at = pos;
        if (length == 0) {
            return utf8(field, 0);
        }
        if (topics == null) {
            topics = new String[TOPICS_REMEMBERED];
            topicBytes = new byte[TOPICS_REMEMBERED][];
        }
        // The slot from the length and the first and last bytes: no pass over the name before the comparison, and
        // a name found there was checked to be ASCII when it was remembered.
        int slot = ((length * 31 + bytes[at + length - 1]) * 31 + bytes[at]) & (TOPICS_REMEMBERED - 1);
        byte[] known = topicBytes[slot];
        if (known != null && known.length == length && sameBytes(known, bytes, at)) {
            pos += length;
            return topics[slot];
        }
        if (!isAscii(bytes, at, length)) {
            return utf8(field, length);
        }
        pos += length;
        String value = latin1(bytes, at, length);
        topics[slot] = value;
        topicBytes[slot] = Arrays.copyOfRange(bytes, at, at + length);
        return value;
    }

    /** A string's int16 length, checked against the bytes left; −1 for null if {@code nullable}. */
    private int stringLength(String field, boolean nullable) throws Malformed {
        short length = int16(field);
        if (length == -1 && nullable) {
            return -1;
        }
        if (length < 0) {
            throw fail(field, length == -1 ? "null string (length -1) where none is allowed"
                    : "negative string length " + length);
        }
        if (length > end - pos) {
            throw fail(field, "string length " + length + " exceeds remaining " + (end - pos) + " bytes");
        }
        return length;
    }

    /** A nullable string: length −1 is null, any other negative length is an error. */
    public String nullableString(String field) throws Malformed {
        int length = stringLength(field, true);
        return length == -1 ? null : utf8(field, length);
    }

    public ErrorCode errorCode(String field) throws Malformed {
        short code = int16(field);
        return known(field, ErrorCode.forCode(code), "error code " + code);
    }

    /** The value a code maps to, or a failure saying {@code what} is unknown. */
    public <T> T known(String field, Optional<T> value, String what) throws Malformed {
        if (value.isEmpty()) {
            throw fail(field, "unknown " + what);
        }
        return value.get();
    }

    /** A non-nullable array: int32 count (never negative), then the elements. */
    public <T> List<T> array(String field, int elementBytesMin, StructReader<T> element) throws Malformed {
        int count = int32(field);
        if (count < 0) {
            throw fail(field, count == -1 ? "null array (count -1) where none is allowed"
                    : "negative array count " + count);
        }
        return elements(field, count, elementBytesMin, element);
    }

    /** A nullable array: count −1 is null, any other negative count is an error. */
    public <T> List<T> nullableArray(String field, int elementBytesMin, StructReader<T> element)
            throws Malformed {
        int count = int32(field);
        if (count == -1) {
            return null;
        }
        if (count < 0) {
            throw fail(field, "negative array count " + count);
        }
        return elements(field, count, elementBytesMin, element);
    }

    /** A nested struct, named in error paths. */
    public <T> T struct(String field, StructReader<T> struct) throws Malformed {
        path.push(field);
        T value = struct.read(this);
        path.pop();
        return value;
    }

    /** Fails unless every byte was consumed: trailing bytes mean sender and receiver disagree on the layout. */
    public void end() throws Malformed {
        if (pos < end) {
            throw new Malformed(path.describe(null) + ": " + (end - pos) + " trailing bytes after the last field");
        }
    }

    public Malformed fail(String field, String problem) {
        return new Malformed(path.describe(field) + ": " + problem);
    }

    /** {@code value} in quotes, cut to a readable length. */
    public static String quote(String value) {
        return value.length() <= QUOTED_CHARS_MAX ? '"' + value + '"'
                : '"' + value.substring(0, QUOTED_CHARS_MAX) + "\"... (" + value.length() + " chars)";
    }

    private <T> List<T> elements(String field, int count, int elementBytesMin, StructReader<T> element)
            throws Malformed {
        // Checked before allocating: a 4-byte count must not be able to reserve 2^31 slots.
        long bytesMin = (long) count * elementBytesMin;
        if (bytesMin > end - pos) {
            throw fail(field, "array count " + count + " needs at least " + bytesMin + " bytes, "
                    + (end - pos) + " remaining");
        }
        Object[] values = new Object[count];
        path.push(field, 0);
        for (int i = 0; i < count; i++) {
            path.index(i);
            values[i] = element.read(this);
        }
        path.pop();
        // An immutable list already: the message records' constructors take a copy of any other (List.copyOf),
        // which for 1,024 elements was two more passes over the array.
        @SuppressWarnings("unchecked") // every element is a T: read above
        List<T> list = (List<T>) List.of(values);
        return list;
    }

    private void need(String field, int n, String type) throws Malformed {
        if (end - pos < n) {
            throw fail(field, "truncated: " + type + " needs " + n + " bytes, " + (end - pos) + " remaining");
        }
    }

    /** The {@code length} bytes at {@link #pos} as a string, {@link #pos} moved past them. */
    private String utf8(String field, int length) throws Malformed {
        int at = pos;
        pos += length;
        if (isAscii(bytes, at, length)) {
            // Most ids and topics are ASCII: skip the decoder, the bytes are already the Latin-1 string.
            return latin1(bytes, at, length);
        }
        ByteBuffer encoded = ByteBuffer.wrap(bytes, at, length);
        try {
            return decoder().decode(encoded).toString();
        } catch (CharacterCodingException e) {
            throw fail(field, "invalid UTF-8 at byte " + (encoded.position() - at) + " of " + length);
        }
    }

    private CharsetDecoder decoder() {
        if (utf8 == null) {
            utf8 = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
        }
        return utf8;
    }

    /** Whether {@code known} equals the bytes of {@code bytes} from {@code from} on (which has as many). */
    private static boolean sameBytes(byte[] known, byte[] bytes, int from) {
        int n = known.length;
        int i = 0;
        for (; n - i >= Long.BYTES; i += Long.BYTES) {
            if ((long) LONG.get(known, i) != (long) LONG.get(bytes, from + i)) {
                return false;
            }
        }
        for (; i < n; i++) {
            if (known[i] != bytes[from + i]) {
                return false;
            }
        }
        return true;
    }

    /** Whether every byte is ASCII (high bit clear): eight bytes at a time, then four, two and one. */
    private static boolean isAscii(byte[] bytes, int from, int length) {
        long high = 0;
        int i = from;
        int to = from + length;
        for (; to - i >= Long.BYTES; i += Long.BYTES) {
            high |= (long) LONG.get(bytes, i);
        }
        if (to - i >= Integer.BYTES) {
            high |= (int) INT.get(bytes, i);
            i += Integer.BYTES;
        }
        if (to - i >= Short.BYTES) {
            high |= (short) SHORT.get(bytes, i);
            i += Short.BYTES;
        }
        if (i < to) {
            high |= bytes[i];
        }
        return (high & HIGH_BITS) == 0;
    }

    @SuppressWarnings("deprecation") // String(byte[], hibyte 0, ...) is exactly the Latin-1 (here: ASCII) decoding
    private static String latin1(byte[] bytes, int from, int length) {
        return new String(bytes, 0, from, length);
    }

    /** Reads one struct (a message body, a nested struct, an array element) field by field. */
    @FunctionalInterface
    public interface StructReader<T> {
        T read(Reader in) throws Malformed;
    }
}
