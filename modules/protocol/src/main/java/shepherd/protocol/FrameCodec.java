package shepherd.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Optional;
import shepherd.protocol.internal.Bodies;
import shepherd.protocol.internal.BodyLayout;
import shepherd.protocol.internal.Malformed;
import shepherd.protocol.internal.Reader;
import shepherd.protocol.internal.Writer;

/**
 * Encodes and decodes whole frames: {@code size:int32}, the {@link Header}, the body (docs/protocol.md).
 *
 * <p>Thread-safe: a codec holds its limit and, per kind of frame, the size of the last one encoded (a hint for the
 * next one's first array), so one instance can serve every connection.
 *
 * <p>Decoding is strict and bounded. Malformed input of any kind ends in one {@link DecodeException} whose reason
 * names the field and value; nothing else is thrown, and nothing is allocated from a length or count before it is
 * checked against the bytes actually present. A frame that decodes re-encodes to exactly the same bytes: every
 * value has one encoding (bools are 0 or 1, UTF-8 is checked, counts are exact, no trailing bytes).
 *
 * <p>Sizes: {@code frameBytesMax} bounds the whole frame including the 4-byte size prefix, the same convention as
 * Netty's {@code LengthFieldBasedFrameDecoder(maxFrameLength, 0, 4, 0, 4)}, so the transport can pass
 * {@link #frameBytesMax()} to it unchanged.
 */
public final class FrameCodec {
    public static final int DEFAULT_FRAME_BYTES_MAX = 1 << 20;
    /** Bytes of the {@code size:int32} prefix. */
    public static final int SIZE_BYTES = Integer.BYTES;
    /**
     * The smallest {@code frameBytesMax} accepted. Any smaller and some malformed requests could not be answered:
     * the largest minimal error response (ConsultResponse) takes 27 bytes.
     */
    public static final int FRAME_BYTES_MAX_MIN = 32;

    private static final int API_KEYS = ApiKey.values().length;
    /** First array size for encoding a frame of the kind and api of this slot: the size of the last one, racily. */
    private static final int SIZE_HINT_FIRST = 256;

    private final int frameBytesMax;
    /**
     * Per frame kind and api, the size of the last frame encoded: the array a frame is encoded into starts that
     * large, so a Start of 1,024 partitions is not copied through eight growing arrays each time. Plain ints, read
     * and written without synchronisation: a stale or lost hint only costs a copy.
     */
    private final int[] sizeHints;

    public FrameCodec() {
        this(DEFAULT_FRAME_BYTES_MAX);
    }

    public FrameCodec(int frameBytesMax) {
        if (frameBytesMax < FRAME_BYTES_MAX_MIN) {
            throw new IllegalArgumentException("frameBytesMax " + frameBytesMax + " is below the minimum "
                    + FRAME_BYTES_MAX_MIN + " (size prefix, header and the largest minimal error response)");
        }
        this.frameBytesMax = frameBytesMax;
        this.sizeHints = new int[FrameKind.values().length * API_KEYS];
        Arrays.fill(sizeHints, SIZE_HINT_FIRST);
    }

    /** The largest frame, size prefix included, this codec encodes or accepts. */
    public int frameBytesMax() {
        return frameBytesMax;
    }

    // --- Encoding ---------------------------------------------------------------------------------------------

    /**
     * The exact number of bytes {@link #encode} produces for {@code frame}, size prefix included. Does not check
     * {@link #frameBytesMax()}.
     *
     * @throws IllegalArgumentException if a string cannot be encoded (over 32767 UTF-8 bytes, unpaired surrogate)
     * @throws FrameTooLargeException if the frame would not even fit a 2 GiB buffer
     */
    public int encodedSize(Frame frame) {
        Writer counting = Writer.counting("header");
        writeFrame(counting, frame);
        if (counting.bytes() > Integer.MAX_VALUE) {
            throw new FrameTooLargeException(frame, counting.bytes(), frameBytesMax);
        }
        return (int) counting.bytes();
    }

    /**
     * {@code frame} encoded, for {@link #encodeTo(Measured, ByteBuffer)}: its exact size and its bytes. For a caller
     * that must know the size to get a buffer.
     *
     * @throws FrameTooLargeException if it would exceed {@link #frameBytesMax()}
     * @throws IllegalArgumentException if a string cannot be encoded (over 32767 UTF-8 bytes, unpaired surrogate)
     */
    public Measured measure(Frame frame) {
        int hint = hintSlot(frame.header());
        Writer out = Writer.growing("header", sizeHints[hint], frameBytesMax);
        writeFrame(out, frame);
        if (out.bytes() > frameBytesMax) {
            throw new FrameTooLargeException(frame, out.bytes(), frameBytesMax);
        }
        int frameBytes = (int) out.bytes();
        out.putInt(0, frameBytes - SIZE_BYTES);
        sizeHints[hint] = frameBytes;
        return new Measured(frame, out.array(), frameBytes);
    }

    /** A frame and its encoding, size prefix included, as {@link #measure} made it. */
    public static final class Measured {
        private final Frame frame;
        private final byte[] encoded;
        private final int bytes;

        private Measured(Frame frame, byte[] encoded, int bytes) {
            this.frame = frame;
            this.encoded = encoded;
            this.bytes = bytes;
        }

        public Frame frame() {
            return frame;
        }

        public int bytes() {
            return bytes;
        }
    }

    /**
     * The whole frame, size prefix included, in a new buffer positioned at 0 and limited to the frame's end.
     *
     * @throws FrameTooLargeException if it would exceed {@link #frameBytesMax()}
     * @throws IllegalArgumentException if a string cannot be encoded (over 32767 UTF-8 bytes, unpaired surrogate)
     */
    public ByteBuffer encode(Frame frame) {
        Measured m = measure(frame);
        return ByteBuffer.wrap(m.encoded, 0, m.bytes).slice();
    }

    /**
     * Writes the whole frame, size prefix included, at {@code out}'s position and advances it past the frame.
     * Writes big-endian whatever {@code out}'s byte order (which is left as it was). Checks everything before
     * writing: on any exception {@code out} is unchanged.
     *
     * @throws FrameTooLargeException if it would exceed {@link #frameBytesMax()}
     * @throws IllegalArgumentException if {@code out} has too little room, or a string cannot be encoded
     */
    public void encodeTo(Frame frame, ByteBuffer out) {
        encodeTo(measure(frame), out);
    }

    /**
     * As {@link #encodeTo(Frame, ByteBuffer)}, for a frame already measured (by this codec or another: the encoding
     * does not depend on the limit).
     *
     * @throws FrameTooLargeException if it exceeds this codec's {@link #frameBytesMax()}
     * @throws IllegalArgumentException if {@code out} has too little room
     */
    public void encodeTo(Measured measured, ByteBuffer out) {
        int frameBytes = measured.bytes();
        if (frameBytes > frameBytesMax) {
            throw new FrameTooLargeException(measured.frame(), frameBytes, frameBytesMax);
        }
        if (out.remaining() < frameBytes) {
            throw new IllegalArgumentException("Frame of " + frameBytes + " bytes does not fit the "
                    + out.remaining() + " bytes remaining in the buffer");
        }
        out.put(measured.encoded, 0, frameBytes);
    }

    /**
     * The one frame layout, written in one pass: the size prefix is a placeholder, overwritten once the size is
     * known.
     */
    private static void writeFrame(Writer out, Frame frame) {
        Header header = frame.header();
        out.int32(0);
        out.int8(header.kind().code());
        out.int16(header.apiKey().id());
        out.int16(header.apiVersion());
        out.int32(header.correlationId());
        BodyLayout<?> body = Bodies.of(header.kind(), header.apiKey());
        out.enter(body.name());
        body.write(out, frame.message());
    }

    /** The slot of {@link #sizeHints} for frames of {@code header}'s kind and api. */
    private static int hintSlot(Header header) {
        return header.kind().ordinal() * API_KEYS + header.apiKey().ordinal();
    }

    // --- Decoding ---------------------------------------------------------------------------------------------

    /**
     * Decodes a frame without its size prefix: {@code body} holds exactly the bytes after {@code size:int32}, from
     * its position to its limit (what Netty's {@code LengthFieldBasedFrameDecoder} hands over with
     * {@code initialBytesToStrip = 4}). Every one of them must belong to the frame.
     *
     * <p>Reads through a duplicate: {@code body}'s position, limit, mark and byte order are left unchanged, whether
     * decoding succeeds or fails. The caller advances past the frame if it wants to.
     */
    public Frame decode(ByteBuffer body) throws DecodeException {
        return decodeAfterSize(body.duplicate().order(ByteOrder.BIG_ENDIAN));
    }

    /**
     * Decodes a whole frame, size prefix included: {@code whole} holds exactly one frame from its position to its
     * limit. The size must be non-negative, within {@link #frameBytesMax()}, and equal to the bytes that follow it.
     * Like {@link #decode}, leaves {@code whole} unchanged.
     */
    public Frame decodeSized(ByteBuffer whole) throws DecodeException {
        ByteBuffer in = whole.duplicate().order(ByteOrder.BIG_ENDIAN);
        if (in.remaining() < SIZE_BYTES) {
            throw DecodeException.withoutHeader("frame.size: truncated: int32 needs " + SIZE_BYTES + " bytes, "
                    + in.remaining() + " remaining");
        }
        int size = in.getInt();
        if (size < 0) {
            throw failure("frame.size: negative size " + size, in);
        }
        if ((long) size + SIZE_BYTES > frameBytesMax) {
            throw failure("frame.size: " + size + " (+" + SIZE_BYTES + " size prefix) exceeds frameBytesMax "
                    + frameBytesMax, in);
        }
        if (size != in.remaining()) {
            throw failure("frame.size: says " + size + " bytes follow, but " + in.remaining() + " do", in);
        }
        return decodeAfterSize(in);
    }

    private Frame decodeAfterSize(ByteBuffer in) throws DecodeException {
        // Checked before reading anything: the limit is what keeps a peer from making us hold large frames.
        if ((long) in.remaining() + SIZE_BYTES > frameBytesMax) {
            throw failure("frame: " + ((long) in.remaining() + SIZE_BYTES) + " bytes (size prefix included) exceed"
                    + " frameBytesMax " + frameBytesMax, in);
        }
        int start = in.position();
        try {
            Reader reader = new Reader(in, "header");
            Header header = readHeader(reader);
            BodyLayout<?> body = Bodies.of(header.kind(), header.apiKey());
            reader.enter(body.name());
            Message message = body.read(reader);
            reader.end();
            return new Frame(header, message);
        } catch (Malformed e) {
            throw failure(e.getMessage(), in.position(start));
        }
    }

    private static Header readHeader(Reader in) throws Malformed {
        // All four fields are read before any is judged, so a bad api key or version still leaves the correlation
        // id known and the request answerable.
        byte kindCode = in.int8("kind");
        short apiId = in.int16("api_key");
        short version = in.int16("api_version");
        int correlationId = in.int32("correlation_id");
        FrameKind kind = in.known("kind", FrameKind.forCode(kindCode), "frame kind " + kindCode);
        ApiKey api = in.known("api_key", ApiKey.forId(apiId), "api key " + apiId);
        if (!api.supportsVersion(version)) {
            throw in.fail("api_version", "unsupported version " + version + " of " + api + " (supported "
                    + api.minVersion() + ".." + api.maxVersion() + ")");
        }
        return new Header(kind, api, version, correlationId);
    }

    /** A DecodeException carrying the raw header, if {@code in} (positioned after the size) holds one. */
    private static DecodeException failure(String reason, ByteBuffer in) {
        int at = in.position();
        if (in.remaining() < Header.BYTES) {
            return DecodeException.withoutHeader(reason);
        }
        return DecodeException.withHeader(reason, in.get(at), in.getShort(at + 1), in.getShort(at + 3),
                in.getInt(at + 5));
    }

    // --- Answering malformed frames -----------------------------------------------------------------------------

    /**
     * The reply DESIGN §3 requires to a malformed frame, "an INVALID_REQUEST response when a correlation id could
     * be read", after which the connection is closed. Empty when there is nobody to answer: the header could not
     * be read, or the frame is not a request (responses are never answered, or two confused peers could answer
     * each other forever).
     * <ul>
     *   <li>known api key, supported version: that api's minimal response carrying INVALID_REQUEST;
     *   <li>known api key, unsupported version: its minimal response carrying UNSUPPORTED_VERSION, at our newest
     *       version of the api, since that is the only body layout we can write;
     *   <li>unknown api key: a bare reply, the response header echoing the raw key, version and correlation id,
     *       then {@code error_code:int16} INVALID_REQUEST and nothing else. The peer's decoder rejects it too, but
     *       with the correlation id in its DecodeException, so it can fail that one request.
     * </ul>
     */
    public Optional<ByteBuffer> errorReplyFor(DecodeException e) {
        if (e.kind().orElse(null) != FrameKind.REQUEST) {
            return Optional.empty();
        }
        int correlationId = e.correlationId().orElseThrow();
        Optional<ApiKey> api = e.apiKey();
        if (api.isEmpty()) {
            return Optional.of(bareErrorReply(e.rawApiKey(), e.rawApiVersion(), correlationId));
        }
        ApiKey key = api.get();
        boolean supported = key.supportsVersion(e.rawApiVersion());
        short version = supported ? e.rawApiVersion() : key.maxVersion();
        ErrorCode error = supported ? ErrorCode.INVALID_REQUEST : ErrorCode.UNSUPPORTED_VERSION;
        Header header = new Header(FrameKind.RESPONSE, key, version, correlationId);
        return Optional.of(encode(new Frame(header, Responses.errorResponse(key, error))));
    }

    private static ByteBuffer bareErrorReply(short rawApiKey, short rawApiVersion, int correlationId) {
        int frameBytes = SIZE_BYTES + Header.BYTES + Short.BYTES;
        Writer writer = Writer.growing("header", frameBytes, frameBytes);
        writer.int32(frameBytes - SIZE_BYTES);
        writer.int8(FrameKind.RESPONSE.code());
        writer.int16(rawApiKey);
        writer.int16(rawApiVersion);
        writer.int32(correlationId);
        writer.errorCode(ErrorCode.INVALID_REQUEST);
        return ByteBuffer.wrap(writer.array(), 0, frameBytes);
    }
}
