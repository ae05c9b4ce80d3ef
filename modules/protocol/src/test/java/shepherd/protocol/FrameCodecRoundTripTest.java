package shepherd.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;
import org.junit.jupiter.api.Test;

/** Properties of encoding over generated messages of every type, extremes included. */
class FrameCodecRoundTripTest {
    /** Large enough for generated messages full of maximal strings; the limit itself is tested elsewhere. */
    private static final FrameCodec CODEC = new FrameCodec(64 << 20);

    @Provide
    Arbitrary<Frame> frames() {
        return MessageArbitraries.full().frames();
    }

    @Property(tries = 3000)
    @StatisticsReport(StatisticsReport.StatisticsReportMode.OFF) // the coverage check below is the report
    void everyMessageRoundTrips(@ForAll("frames") Frame frame) throws DecodeException {
        Statistics.collect(frame.message().getClass().getSimpleName());
        ByteBuffer whole = CODEC.encode(frame);
        assertEquals(frame, CODEC.decodeSized(whole));

        byte[] bytes = Hex.bytes(whole);
        ByteBuffer body = ByteBuffer.wrap(Arrays.copyOfRange(bytes, FrameCodec.SIZE_BYTES, bytes.length));
        assertEquals(frame, CODEC.decode(body));

        Statistics.coverage(coverage -> {
            for (Class<?> type : Request.class.getPermittedSubclasses()) {
                coverage.check(type.getSimpleName()).count(n -> n > 0);
            }
            for (Class<?> type : Response.class.getPermittedSubclasses()) {
                coverage.check(type.getSimpleName()).count(n -> n > 0);
            }
        });
    }

    @Property(tries = 1000)
    void encodedSizeIsExact(@ForAll("frames") Frame frame) {
        ByteBuffer whole = CODEC.encode(frame);
        assertEquals(CODEC.encodedSize(frame), whole.remaining());
        assertEquals(0, whole.position());
        assertEquals(whole.remaining() - FrameCodec.SIZE_BYTES, whole.getInt(0), "size field");
    }

    @Property(tries = 500)
    void encodeToWritesTheSameBytesAtAnyPositionOrderAndKindOfBuffer(
            @ForAll("frames") Frame frame, @ForAll @IntRange(max = 16) int offset, @ForAll boolean littleEndian,
            @ForAll boolean direct) {
        int frameBytes = CODEC.encodedSize(frame);
        int capacity = offset + frameBytes + 3;
        ByteBuffer out = (direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity))
                .order(littleEndian ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        out.position(offset);
        CODEC.encodeTo(frame, out);

        assertEquals(offset + frameBytes, out.position());
        assertEquals(littleEndian ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN, out.order());
        byte[] written = new byte[frameBytes];
        out.get(offset, written);
        assertArrayEquals(Hex.bytes(CODEC.encode(frame)), written);
    }

    @Property(tries = 500)
    void aMeasuredFrameIsWrittenAsEncodeWritesIt(@ForAll("frames") Frame frame, @ForAll boolean direct) {
        FrameCodec.Measured measured = CODEC.measure(frame);
        assertEquals(CODEC.encodedSize(frame), measured.bytes());
        ByteBuffer out = direct ? ByteBuffer.allocateDirect(measured.bytes()) : ByteBuffer.allocate(measured.bytes());
        CODEC.encodeTo(measured, out);
        assertEquals(measured.bytes(), out.position());
        byte[] written = new byte[measured.bytes()];
        out.get(0, written);
        assertArrayEquals(Hex.bytes(CODEC.encode(frame)), written);
    }

    @Property(tries = 500)
    void decodesFromDirectAndReadOnlyBuffers(@ForAll("frames") Frame frame, @ForAll boolean direct)
            throws DecodeException {
        ByteBuffer heap = CODEC.encode(frame);
        ByteBuffer source = heap.asReadOnlyBuffer();
        if (direct) {
            source = ByteBuffer.allocateDirect(heap.remaining()).put(heap.duplicate()).flip();
        }
        assertEquals(frame, CODEC.decodeSized(source));
    }

    @Property(tries = 500)
    void decodingLeavesTheCallersBufferAsItWas(@ForAll("frames") Frame frame, @ForAll @IntRange(max = 16) int offset)
            throws DecodeException {
        byte[] encoded = Hex.bytes(CODEC.encode(frame));
        byte[] padded = new byte[offset + encoded.length];
        System.arraycopy(encoded, 0, padded, offset, encoded.length);
        ByteBuffer whole = ByteBuffer.wrap(padded).position(offset).order(ByteOrder.LITTLE_ENDIAN);

        assertEquals(frame, CODEC.decodeSized(whole));
        assertEquals(offset, whole.position());
        assertEquals(padded.length, whole.limit());
        assertEquals(ByteOrder.LITTLE_ENDIAN, whole.order());

        ByteBuffer body = whole.duplicate().position(offset + FrameCodec.SIZE_BYTES);
        assertEquals(frame, CODEC.decode(body));
        assertEquals(offset + FrameCodec.SIZE_BYTES, body.position());
    }

    @Property(tries = 200)
    void maximalStringsOfAnyCharactersRoundTrip(@ForAll("maximalStrings") String text) throws DecodeException {
        Frame frame = Frame.request(1, new LeaveRequest(text, text, null));
        assertEquals(frame, CODEC.decodeSized(CODEC.encode(frame)));
        assertEquals(FrameCodec.SIZE_BYTES + Header.BYTES + 2 * (2 + 32767) + 4, CODEC.encodedSize(frame));
    }

    /**
     * The reader keeps the last few topic names and hands a repeated one out again: names that collide in its table,
     * differ in one byte, are not ASCII or come in any order must still decode as sent.
     */
    @Property(tries = 300)
    void repeatedTopicNamesDecodeAsSentInAnyOrder(@ForAll("topicSequences") List<String> topics)
            throws DecodeException {
        List<PartitionAssignment> assigned = new ArrayList<>();
        for (int i = 0; i < topics.size(); i++) {
            assigned.add(new PartitionAssignment(topics.get(i), "1-" + i, i, i % 3));
        }
        Frame frame = Frame.request(3, new StartRequest(1, 2, assigned));
        assertEquals(frame, CODEC.decodeSized(CODEC.encode(frame)));
    }

    @Provide
    Arbitrary<List<String>> topicSequences() {
        Arbitrary<String> names = Arbitraries.oneOf(
                Arbitraries.integers().between(0, 40).map(n -> "orders-" + n),
                Arbitraries.integers().between(0, 40).map(n -> "t" + (char) ('a' + n % 26) + n),
                Arbitraries.of("ordres-1", "orders-1", "orders-10", "örders-1", "orders-\u20ac", "", "a"));
        return names.list().ofMaxSize(300);
    }

    @Test
    void aTopicNameRepeatedInOneFrameIsOneString() throws DecodeException {
        List<PartitionAssignment> assigned = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            assigned.add(new PartitionAssignment("orders-" + (i % 8), "1-" + i, i, 0));
        }
        StartRequest decoded = (StartRequest) CODEC.decodeSized(CODEC.encode(
                Frame.request(3, new StartRequest(1, 2, assigned)))).message();
        for (int i = 8; i < 64; i++) {
            assertSame(decoded.assigned().get(i - 8).topic(), decoded.assigned().get(i).topic());
        }
    }

    @Provide
    Arbitrary<String> maximalStrings() {
        return MessageArbitraries.maximalStrings();
    }
}
