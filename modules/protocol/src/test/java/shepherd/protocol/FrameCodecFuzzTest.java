package shepherd.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;

/**
 * Feeds garbage to the decoder: random bytes, random bodies behind plausible headers, truncated frames, and valid
 * frames with bits flipped and bytes changed, inserted or deleted. The only acceptable outcomes are a
 * {@link DecodeException} (whose error reply, if any, must itself be well-formed) or a frame that re-encodes to
 * exactly the input; anything else escaping the decoder fails the property. 110,000 cases in all.
 */
class FrameCodecFuzzTest {
    private static final FrameCodec CODEC = new FrameCodec();

    @Property(tries = 30_000)
    void randomBytesDecodeOrFailTyped(@ForAll @Size(max = 96) byte[] bytes) {
        decodesOrFailsTyped(bytes);
    }

    @Property(tries = 20_000)
    void randomBodiesAfterAPlausibleHeaderDecodeOrFailTyped(
            @ForAll("plausibleHeaders") byte[] header, @ForAll @Size(max = 96) byte[] body) {
        byte[] frameBody = concat(header, body);
        decodesOrFailsTyped(concat(sizePrefix(frameBody.length), frameBody));
    }

    @Property(tries = 20_000)
    void truncatedFramesAlwaysFailTyped(@ForAll("smallFrames") Frame frame, @ForAll int cut) {
        byte[] whole = Hex.bytes(CODEC.encode(frame));
        int length = Math.floorMod(cut, whole.length);
        byte[] truncated = Arrays.copyOf(whole, length);
        assertThrows(DecodeException.class, () -> CODEC.decodeSized(ByteBuffer.wrap(truncated)));
        if (length >= FrameCodec.SIZE_BYTES) {
            byte[] body = Arrays.copyOfRange(truncated, FrameCodec.SIZE_BYTES, length);
            assertThrows(DecodeException.class, () -> CODEC.decode(ByteBuffer.wrap(body)));
        }
        decodesOrFailsTyped(truncated);
    }

    @Property(tries = 40_000)
    @StatisticsReport(StatisticsReport.StatisticsReportMode.OFF)
    void mutatedFramesDecodeOrFailTyped(
            @ForAll("smallFrames") Frame frame, @ForAll("mutations") List<Mutation> mutations,
            @ForAll boolean fixSizePrefix) {
        byte[] whole = Hex.bytes(CODEC.encode(frame));
        for (Mutation mutation : mutations) {
            whole = mutation.applyTo(whole);
        }
        if (fixSizePrefix && whole.length >= FrameCodec.SIZE_BYTES) {
            // Half the cases get a consistent size, so the mutation is judged by the body decoder, not the size check.
            ByteBuffer.wrap(whole).putInt(0, whole.length - FrameCodec.SIZE_BYTES);
        }
        Statistics.collect(decodesOrFailsTyped(whole));
        // Guards the fuzzer itself: most mutants must get past the framing into the body decoders, and some must
        // decode, or the property would only ever be testing the size check.
        Statistics.coverage(coverage -> {
            coverage.check(Outcome.BODY_REJECTED).percentage(p -> p > 20);
            coverage.check(Outcome.DECODED).percentage(p -> p > 5);
        });
    }

    @Provide
    Arbitrary<Frame> smallFrames() {
        return MessageArbitraries.small().frames();
    }

    @Provide
    Arbitrary<byte[]> plausibleHeaders() {
        Arbitrary<Integer> kinds = Arbitraries.frequency(Tuple.of(10, 0), Tuple.of(10, 1), Tuple.of(1, 2));
        Arbitrary<Integer> apiKeys = Arbitraries.integers().between(-1, ApiKey.values().length);
        Arbitrary<Integer> versions = Arbitraries.frequency(Tuple.of(20, 0), Tuple.of(1, 1), Tuple.of(1, -1));
        return Combinators.combine(kinds, apiKeys, versions, Arbitraries.integers())
                .as((kind, api, version, correlationId) ->
                        WireBytes.header(kind, api, version, correlationId).body());
    }

    @Provide
    Arbitrary<List<Mutation>> mutations() {
        return Combinators.combine(
                        Arbitraries.of(MutationKind.class), Arbitraries.integers(), Arbitraries.integers())
                .as(Mutation::new)
                .list().ofMinSize(1).ofMaxSize(4);
    }

    /**
     * Both entry points on {@code whole}: decodeSized on all of it, decode on what follows the size prefix.
     * Returns how decodeSized fared.
     */
    private static String decodesOrFailsTyped(byte[] whole) {
        String outcome = decodeOrFailTyped(ByteBuffer.wrap(whole), true, whole);
        if (whole.length >= FrameCodec.SIZE_BYTES) {
            ByteBuffer body = ByteBuffer.wrap(whole, FrameCodec.SIZE_BYTES, whole.length - FrameCodec.SIZE_BYTES);
            decodeOrFailTyped(body, false, whole);
        }
        return outcome;
    }

    /**
     * Decodes {@code in} and checks the outcome: a frame that re-encodes to exactly the input, or a DecodeException
     * whose reply checks out. Any other throwable escapes and fails the property.
     */
    private static String decodeOrFailTyped(ByteBuffer in, boolean sized, byte[] whole) {
        int position = in.position();
        int limit = in.limit();
        try {
            Frame frame = sized ? CODEC.decodeSized(in) : CODEC.decode(in);
            byte[] encoded = Hex.bytes(CODEC.encode(frame));
            int skip = sized ? 0 : FrameCodec.SIZE_BYTES;
            assertArrayEquals(Arrays.copyOfRange(whole, skip, whole.length),
                    Arrays.copyOfRange(encoded, skip, encoded.length), "re-encoding a decoded frame");
            return Outcome.DECODED;
        } catch (DecodeException e) {
            assertFalse(e.reason().isBlank());
            replyIsWellFormed(e);
            return e.reason().startsWith("frame") || e.reason().startsWith("header") ? Outcome.FRAMING_REJECTED
                    : Outcome.BODY_REJECTED;
        } finally {
            assertEquals(position, in.position(), "decode must leave the caller's position");
            assertEquals(limit, in.limit(), "decode must leave the caller's limit");
        }
    }

    private static void replyIsWellFormed(DecodeException e) {
        Optional<ByteBuffer> reply = CODEC.errorReplyFor(e);
        if (e.kind().orElse(null) != FrameKind.REQUEST) {
            assertTrue(reply.isEmpty(), "only requests are answered");
            return;
        }
        ByteBuffer bytes = reply.orElseThrow();
        if (e.apiKey().isEmpty()) {
            DecodeException rejected = assertThrows(DecodeException.class, () -> CODEC.decodeSized(bytes));
            assertEquals(e.correlationId(), rejected.correlationId());
            return;
        }
        Frame answer = assertDoesNotThrowDecode(bytes);
        assertEquals(FrameKind.RESPONSE, answer.header().kind());
        assertEquals(e.correlationId().getAsInt(), answer.header().correlationId());
        ErrorCode error = ((Response) answer.message()).errorCode();
        assertTrue(error == ErrorCode.INVALID_REQUEST || error == ErrorCode.UNSUPPORTED_VERSION, error::toString);
    }

    private static Frame assertDoesNotThrowDecode(ByteBuffer bytes) {
        try {
            return CODEC.decodeSized(bytes);
        } catch (DecodeException e) {
            throw new AssertionError("Our own error reply does not decode: " + e.getMessage(), e);
        }
    }

    private static byte[] sizePrefix(int size) {
        return ByteBuffer.allocate(FrameCodec.SIZE_BYTES).putInt(size).array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static final class Outcome {
        static final String DECODED = "decoded";
        static final String FRAMING_REJECTED = "rejected in size or header";
        static final String BODY_REJECTED = "rejected in body";
    }

    enum MutationKind { FLIP_BIT, SET_BYTE, SET_EDGE_BYTE, INSERT_BYTE, DELETE_BYTE }

    /** One change to a frame's bytes; {@code where} and {@code value} are reduced to fit. */
    record Mutation(MutationKind kind, int where, int value) {
        private static final byte[] EDGE_BYTES = {0x00, (byte) 0xFF, 0x7F, (byte) 0x80, 0x01, (byte) 0xFE};

        byte[] applyTo(byte[] bytes) {
            if (bytes.length == 0) {
                return kind == MutationKind.INSERT_BYTE ? new byte[] {(byte) value} : bytes;
            }
            int at = Math.floorMod(where, bytes.length);
            byte[] changed = bytes.clone();
            switch (kind) {
                case FLIP_BIT -> changed[at] ^= (byte) (1 << Math.floorMod(value, 8));
                case SET_BYTE -> changed[at] = (byte) value;
                case SET_EDGE_BYTE -> changed[at] = EDGE_BYTES[Math.floorMod(value, EDGE_BYTES.length)];
                case INSERT_BYTE -> changed = insert(bytes, at, (byte) value);
                case DELETE_BYTE -> changed = delete(bytes, at);
            }
            return changed;
        }

        private static byte[] insert(byte[] bytes, int at, byte value) {
            byte[] longer = new byte[bytes.length + 1];
            System.arraycopy(bytes, 0, longer, 0, at);
            longer[at] = value;
            System.arraycopy(bytes, at, longer, at + 1, bytes.length - at);
            return longer;
        }

        private static byte[] delete(byte[] bytes, int at) {
            byte[] shorter = new byte[bytes.length - 1];
            System.arraycopy(bytes, 0, shorter, 0, at);
            System.arraycopy(bytes, at + 1, shorter, at, bytes.length - at - 1);
            return shorter;
        }
    }
}
