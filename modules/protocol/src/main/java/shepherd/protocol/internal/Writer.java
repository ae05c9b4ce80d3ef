package shepherd.protocol.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import shepherd.protocol.ErrorCode;

/**
 * Writing of the protocol's types, big-endian, in one pass over the message: into an array of its own that grows
 * as needed ({@link #growing}), or counting only ({@link #counting}). Every string is checked as it is written (an
 * unpaired surrogate or more than {@link #STRING_BYTES_MAX} UTF-8 bytes is an {@link IllegalArgumentException}
 * naming the field), so a frame either encodes whole or not at all, and its caller copies the finished bytes
 * wherever they go: nothing half-written ever reaches a caller's buffer. The size prefix is written last
 * ({@link #putInt(int, int)}), once the size is known.
 *
 * <p>One pass, straight into an array: measuring every frame first and then writing it again, through a
 * {@code ByteBuffer}'s per-write position and limit bookkeeping, costs about twice as much.
 */
public final class Writer {
    /** The int16 length prefix caps a string at this many UTF-8 bytes. */
    public static final int STRING_BYTES_MAX = Short.MAX_VALUE;
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** The largest array a JVM reliably allocates. */
    private static final long ARRAY_BYTES_MAX = Integer.MAX_VALUE - 8;

    private final FieldPath path;
    /** The bytes written so far; null once counting only (from the start, or past {@link #bytesMax}). */
    private byte[] out;
    /** Bytes written, or counted. */
    private long bytes;
    /** Past this many bytes the writer stops writing and only counts, so a huge frame costs no huge array. */
    private final long bytesMax;

    private Writer(String struct, byte[] out, long bytesMax) {
        this.path = new FieldPath(struct);
        this.out = out;
        this.bytesMax = bytesMax;
    }

    /** A writer that only counts the bytes a layout would take, checking its strings. */
    public static Writer counting(String struct) {
        return new Writer(struct, null, Long.MAX_VALUE);
    }

    /**
     * A writer into an array of its own, first {@code capacity} bytes long and grown as needed; past
     * {@code bytesMax} bytes it drops the array and goes on counting only, so the size of a frame too large is still
     * known exactly.
     */
    public static Writer growing(String struct, int capacity, long bytesMax) {
        return new Writer(struct, new byte[Math.max(16, capacity)], bytesMax);
    }

    /** Starts writing a new top-level struct, so errors name it. */
    public void enter(String struct) {
        path.reset(struct);
    }

    /** Bytes written (or counted) so far. */
    public long bytes() {
        return bytes;
    }

    /** The array written into: its first {@link #bytes()} bytes are the encoding. Only if they were written. */
    public byte[] array() {
        if (out == null) {
            throw new IllegalStateException("nothing written: counting only");
        }
        return out;
    }

    /** Overwrites the int32 at {@code offset}, already written (the size prefix, once the size is known). */
    public void putInt(int offset, int value) {
        INT.set(array(), offset, value);
    }

    public void int8(byte value) {
        if (room(Byte.BYTES)) {
            out[(int) bytes] = value;
        }
        bytes += Byte.BYTES;
    }

    public void int16(short value) {
        if (room(Short.BYTES)) {
            SHORT.set(out, (int) bytes, value);
        }
        bytes += Short.BYTES;
    }

    public void int32(int value) {
        if (room(Integer.BYTES)) {
            INT.set(out, (int) bytes, value);
        }
        bytes += Integer.BYTES;
    }

    public void int64(long value) {
        if (room(Long.BYTES)) {
            LONG.set(out, (int) bytes, value);
        }
        bytes += Long.BYTES;
    }

    public void bool(boolean value) {
        int8(value ? (byte) 1 : (byte) 0);
    }

    public void errorCode(ErrorCode code) {
        int16(code.code());
    }

    /**
     * A non-nullable string: int16 UTF-8 length, then the bytes. An ASCII string (most ids and topics) is checked
     * and copied in one loop; any other is measured (refusing unpaired surrogates) and then encoded.
     *
     * @throws IllegalArgumentException if it is longer than {@link #STRING_BYTES_MAX} UTF-8 bytes or holds an
     *     unpaired surrogate (which has no UTF-8 encoding)
     */
    public void string(String field, String value) {
        int chars = value.length();
        if (chars <= STRING_BYTES_MAX && room(Short.BYTES + chars)) {
            int at = (int) bytes + Short.BYTES;
            byte[] to = out;
            int seen = 0;
            for (int i = 0; i < chars; i++) {
                char c = value.charAt(i);
                seen |= c;
                to[at + i] = (byte) c;
            }
            if (seen < 0x80) {
                SHORT.set(to, at - Short.BYTES, (short) chars);
                bytes += Short.BYTES + chars;
                return;
            }
        }
        utf8String(field, value);
    }

    /** A string that is not ASCII, or does not fit: measured (refusing unpaired surrogates), then encoded. */
    private void utf8String(String field, String value) {
        long length = checkedLength(field, value);
        if (room(Short.BYTES + length)) {
            SHORT.set(out, (int) bytes, (short) length);
            byte[] encoded = value.getBytes(StandardCharsets.UTF_8); // exact: no unpaired surrogate, checked above
            System.arraycopy(encoded, 0, out, (int) bytes + Short.BYTES, encoded.length);
        }
        bytes += Short.BYTES + length;
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
     * Whether the next {@code n} bytes are to be written (not only counted), growing the array if they are. Past
     * {@link #bytesMax} the array is dropped and the writer counts only from then on.
     */
    private boolean room(long n) {
        return out != null && (bytes + n <= out.length || grow(n));
    }

    /** {@link #room} when the array is full: grows it, or drops it past {@link #bytesMax}. */
    private boolean grow(long n) {
        long needed = bytes + n;
        long cap = Math.min(bytesMax, ARRAY_BYTES_MAX);
        if (needed > cap) {
            out = null;
            return false;
        }
        out = Arrays.copyOf(out, (int) Math.min(cap, Math.max(needed, 2L * out.length)));
        return true;
    }

    /** A non-nullable array: int32 count, then the elements. */
    public <T> void array(String field, List<T> values, StructWriter<T> element) {
        int32(values.size());
        if (values.isEmpty()) {
            return;
        }
        path.push(field, 0);
        for (int i = 0; i < values.size(); i++) {
            path.index(i);
            element.write(this, values.get(i));
        }
        path.pop();
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
        path.push(field, FieldPath.NO_INDEX);
        struct.write(this, value);
        path.pop();
    }

    /** Writes one struct (a message body, a nested struct, an array element) field by field. */
    @FunctionalInterface
    public interface StructWriter<T> {
        void write(Writer out, T value);
    }
}
