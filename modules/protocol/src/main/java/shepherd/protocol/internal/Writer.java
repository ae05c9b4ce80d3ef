package shepherd.protocol.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import shepherd.protocol.ErrorCode;

/**
 * Writing of the protocol's types, big-endian. The same layout code runs twice per frame: first on a sizing writer,
 * which only counts bytes (and rejects what cannot be encoded, before any byte is written), then on a writer into
 * a buffer of exactly that size. One layout, so the size prefix can never disagree with the bytes. The sizing pass
 * also notes each string's UTF-8 length, in layout order, and the writing pass of the same frame takes them from it
 * ({@link #into(ByteBuffer, String, Writer)}): a string is scanned once, and an ASCII one (most ids and topics) is
 * then copied as a block.
 */
public final class Writer {
    /** The int16 length prefix caps a string at this many UTF-8 bytes. */
    public static final int STRING_BYTES_MAX = Short.MAX_VALUE;

    private final ByteBuffer out;
    private final FieldPath path;
    private long bytes;
    /** Sizing: the UTF-8 length of each string so far, in layout order. Writing: those of the sizing pass. */
    private int[] lengths;
    /** Sizing: strings noted. Writing: strings written. */
    private int strings;
    /** Writing an ASCII string into a buffer without an accessible array goes through this. */
    private byte[] scratch;

    private Writer(ByteBuffer out, String struct, int[] lengths) {
        this.out = out;
        this.path = new FieldPath(struct);
        this.lengths = lengths;
    }

    /** A writer that only counts the bytes a layout would take (and notes each string's length). */
    public static Writer sizing(String struct) {
        return new Writer(null, struct, new int[16]);
    }

    /**
     * A writer into {@code out}, which must be big-endian and have room, for a layout without strings (a bare error
     * reply): there is no sizing pass to take their lengths from.
     */
    public static Writer into(ByteBuffer out, String struct) {
        return new Writer(out, struct, new int[0]);
    }

    /**
     * A writer into {@code out}, which must be big-endian and have room, for the frame {@code sized} (a sizing
     * writer) was just run over: that pass validated its strings and noted their lengths.
     */
    public static Writer into(ByteBuffer out, String struct, Writer sized) {
        if (sized.out != null) {
            throw new IllegalArgumentException("not a sizing writer");
        }
        return new Writer(out, struct, sized.lengths);
    }

    /** Starts writing a new top-level struct, so errors name it. */
    public void enter(String struct) {
        path.reset(struct);
    }

    /** Bytes written (or counted) so far. */
    public long bytes() {
        return bytes;
    }

    public void int8(byte value) {
        bytes += Byte.BYTES;
        if (out != null) {
            out.put(value);
        }
    }

    public void int16(short value) {
        bytes += Short.BYTES;
        if (out != null) {
            out.putShort(value);
        }
    }

    public void int32(int value) {
        bytes += Integer.BYTES;
        if (out != null) {
            out.putInt(value);
        }
    }

    public void int64(long value) {
        bytes += Long.BYTES;
        if (out != null) {
            out.putLong(value);
        }
    }

    public void bool(boolean value) {
        int8(value ? (byte) 1 : (byte) 0);
    }

    public void errorCode(ErrorCode code) {
        int16(code.code());
    }

    /**
     * A non-nullable string.
     *
     * @throws IllegalArgumentException if it is longer than {@link #STRING_BYTES_MAX} UTF-8 bytes or holds an
     *     unpaired surrogate (which has no UTF-8 encoding)
     */
    public void string(String field, String value) {
        if (out == null) {
            long length = checkedLength(field, value);
            if (strings == lengths.length) {
                lengths = Arrays.copyOf(lengths, strings * 2);
            }
            lengths[strings++] = (int) length;
            bytes += Short.BYTES + length;
        } else {
            writeChecked(value);
        }
    }

    /** A nullable string: null is length −1. */
    public void nullableString(String field, String value) {
        if (value == null) {
            int16((short) -1);
        } else {
            string(field, value);
        }
    }

    private long checkedLength(String field, String value) {
        long length = Utf8.length(value);
        if (length < 0) {
            throw new IllegalArgumentException(path.describe(field) + ": unpaired surrogate at char "
                    + (-1 - length) + " has no UTF-8 encoding");
        }
        if (length > STRING_BYTES_MAX) {
            throw new IllegalArgumentException(path.describe(field) + ": " + length
                    + " UTF-8 bytes exceed the string maximum of " + STRING_BYTES_MAX);
        }
        return length;
    }

    /**
     * Writes a string the sizing pass (which always runs first) has checked: its length, then the bytes. A UTF-8
     * length equal to the number of chars means every char is ASCII (any other takes two bytes or more).
     */
    private void writeChecked(String value) {
        int length = lengths[strings++];
        out.putShort((short) length);
        if (length == value.length()) {
            scratch = Utf8.putAscii(value, out, scratch);
        } else {
            out.put(value.getBytes(StandardCharsets.UTF_8)); // exact: the sizing pass ruled out unpaired surrogates
        }
        bytes += Short.BYTES + length;
    }

    /** A non-nullable array: int32 count, then the elements. */
    public <T> void array(String field, List<T> values, StructWriter<T> element) {
        int32(values.size());
        for (int i = 0; i < values.size(); i++) {
            enter(field, i);
            element.write(this, values.get(i));
            leave();
        }
    }

    /** A nullable array: null is count −1. */
    public <T> void nullableArray(String field, List<T> values, StructWriter<T> element) {
        if (values == null) {
            int32(-1);
        } else {
            array(field, values, element);
        }
    }

    /** A nested struct, named in error paths. */
    public <T> void struct(String field, T value, StructWriter<T> struct) {
        enter(field, FieldPath.NO_INDEX);
        struct.write(this, value);
        leave();
    }

    // The path only serves error messages, and only the sizing pass can fail: the writing pass skips it.
    private void enter(String field, int index) {
        if (out == null) {
            path.push(field, index);
        }
    }

    private void leave() {
        if (out == null) {
            path.pop();
        }
    }

    /** Writes one struct (a message body, a nested struct, an array element) field by field. */
    @FunctionalInterface
    public interface StructWriter<T> {
        void write(Writer out, T value);
    }
}
