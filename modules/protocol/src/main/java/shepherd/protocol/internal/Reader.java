package shepherd.protocol.internal;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import shepherd.protocol.ErrorCode;

/**
 * Strict, bounded reading of the protocol's types from a big-endian buffer. Every read first checks that its bytes
 * are there; every length and count is checked against the remaining bytes before anything is allocated, so no
 * input can make the reader allocate more than the frame it was given. Any violation is a {@link Malformed} naming
 * the field (with its path) and the offending value.
 */
public final class Reader {
    /** Longest piece of a bad string value quoted in a reason: enough to recognise it, never the 32 KiB of it. */
    private static final int QUOTED_CHARS_MAX = 40;

    private final ByteBuffer in;
    private final FieldPath path;
    private CharsetDecoder utf8;

    /** Reads from {@code in}'s position to its limit; {@code in} must be big-endian. */
    public Reader(ByteBuffer in, String struct) {
        this.in = in;
        this.path = new FieldPath(struct);
    }

    /** Starts reading a new top-level struct, so errors name it. */
    public void enter(String struct) {
        path.reset(struct);
    }

    public byte int8(String field) throws Malformed {
        need(field, Byte.BYTES, "int8");
        return in.get();
    }

    public short int16(String field) throws Malformed {
        need(field, Short.BYTES, "int16");
        return in.getShort();
    }

    public int int32(String field) throws Malformed {
        need(field, Integer.BYTES, "int32");
        return in.getInt();
    }

    public long int64(String field) throws Malformed {
        need(field, Long.BYTES, "int64");
        return in.getLong();
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
        short length = int16(field);
        if (length < 0) {
            throw fail(field, length == -1 ? "null string (length -1) where none is allowed"
                    : "negative string length " + length);
        }
        if (length > in.remaining()) {
            throw fail(field, "string length " + length + " exceeds remaining " + in.remaining() + " bytes");
        }
        return utf8(field, length);
    }

    /** A nullable string: length −1 is null, any other negative length is an error. */
    public String nullableString(String field) throws Malformed {
        short length = int16(field);
        if (length == -1) {
            return null;
        }
        if (length < 0) {
            throw fail(field, "negative string length " + length);
        }
        if (length > in.remaining()) {
            throw fail(field, "string length " + length + " exceeds remaining " + in.remaining() + " bytes");
        }
        return utf8(field, length);
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
        if (in.hasRemaining()) {
            throw new Malformed(path.describe(null) + ": " + in.remaining() + " trailing bytes after the last field");
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
        if (bytesMin > in.remaining()) {
            throw fail(field, "array count " + count + " needs at least " + bytesMin + " bytes, "
                    + in.remaining() + " remaining");
        }
        List<T> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            path.push(field, i);
            values.add(element.read(this));
            path.pop();
        }
        return values;
    }

    private void need(String field, int bytes, String type) throws Malformed {
        if (in.remaining() < bytes) {
            throw fail(field, "truncated: " + type + " needs " + bytes + " bytes, " + in.remaining() + " remaining");
        }
    }

    private String utf8(String field, int length) throws Malformed {
        byte[] bytes;
        int offset;
        if (in.hasArray()) {
            bytes = in.array(); // read in place: no copy before the String's own
            offset = in.arrayOffset() + in.position();
        } else {
            bytes = new byte[length];
            offset = 0;
            in.get(in.position(), bytes);
        }
        in.position(in.position() + length);
        if (isAscii(bytes, offset, length)) {
            // Most ids and topics are ASCII: skip the decoder, the bytes are already the Latin-1 string.
            return new String(bytes, offset, length, StandardCharsets.ISO_8859_1);
        }
        ByteBuffer encoded = ByteBuffer.wrap(bytes, offset, length);
        try {
            return decoder().decode(encoded).toString();
        } catch (CharacterCodingException e) {
            throw fail(field, "invalid UTF-8 at byte " + (encoded.position() - offset) + " of " + length);
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

    private static boolean isAscii(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (bytes[i] < 0) {
                return false;
            }
        }
        return true;
    }

    /** Reads one struct (a message body, a nested struct, an array element) field by field. */
    @FunctionalInterface
    public interface StructReader<T> {
        T read(Reader in) throws Malformed;
    }
}
