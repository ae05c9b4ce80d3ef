package shepherd.protocol;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class FrameCodecLimitsTest {
    private static final int LEAVE_OVERHEAD_BYTES = 4 + 9 + 2 + 2 + 4; // size, header, two lengths, null array

    /** A LeaveRequest frame of exactly {@code frameBytes} (ASCII group id, empty consumer id). */
    private static Frame leaveOfSize(int frameBytes) {
        return Frame.request(1, new LeaveRequest("g".repeat(frameBytes - LEAVE_OVERHEAD_BYTES), "", null));
    }

    @Test
    void defaultLimitIsOneMebibyte() {
        assertEquals(1 << 20, new FrameCodec().frameBytesMax());
        assertEquals(FrameCodec.DEFAULT_FRAME_BYTES_MAX, new FrameCodec().frameBytesMax());
    }

    @ParameterizedTest
    @ValueSource(ints = {Integer.MIN_VALUE, -1, 0, 13, 31})
    void constructorRejectsLimitsTooSmallForAnyFrame(int frameBytesMax) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new FrameCodec(frameBytesMax));
        assertTrue(e.getMessage().contains("frameBytesMax " + frameBytesMax), e::getMessage);
    }

    @ParameterizedTest
    @EnumSource(ApiKey.class)
    void everyErrorReplyFitsTheSmallestLimit(ApiKey api) {
        FrameCodec smallest = new FrameCodec(FrameCodec.FRAME_BYTES_MAX_MIN);
        for (ErrorCode error : List.of(ErrorCode.INVALID_REQUEST, ErrorCode.UNSUPPORTED_VERSION)) {
            assertDoesNotThrow(() -> smallest.encode(Frame.response(1, Responses.errorResponse(api, error))));
        }
    }

    @Test
    void encodeAcceptsAFrameOfExactlyTheLimitAndRejectsOneMore() {
        FrameCodec codec = new FrameCodec(100);
        assertEquals(100, codec.encode(leaveOfSize(100)).remaining());
        FrameTooLargeException e = assertThrows(FrameTooLargeException.class, () -> codec.encode(leaveOfSize(101)));
        assertEquals(101, e.frameBytes());
        assertEquals(100, e.frameBytesMax());
        assertTrue(e.getMessage().contains("LeaveRequest frame of 101 bytes exceeds frameBytesMax 100"),
                e::getMessage);
        assertThrows(FrameTooLargeException.class, () -> codec.encodeTo(leaveOfSize(101), ByteBuffer.allocate(200)));
        assertEquals(101, codec.encodedSize(leaveOfSize(101)), "encodedSize reports sizes over the limit too");
    }

    /**
     * Past its limit the writer drops its array and only counts, wherever in an array of elements the limit falls:
     * the size it reports stays exact, and a frame that fits still decodes as sent.
     */
    @Test
    void aStartIsMeasuredExactlyWhereverTheLimitFalls() throws DecodeException {
        List<PartitionAssignment> assigned = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            assigned.add(new PartitionAssignment("orders-" + (i % 3), "1-" + i, i, 0));
        }
        Frame start = Frame.request(1, new StartRequest(1, 2, assigned));
        int size = new FrameCodec().encode(start).remaining();
        for (int limit = FrameCodec.FRAME_BYTES_MAX_MIN; limit <= size + 2; limit++) {
            FrameCodec codec = new FrameCodec(limit);
            assertEquals(size, codec.encodedSize(start));
            if (limit >= size) {
                assertEquals(start, codec.decodeSized(codec.encode(start)));
            } else {
                assertEquals(size, assertThrows(FrameTooLargeException.class, () -> codec.encode(start)).frameBytes());
            }
        }
    }

    @Test
    void decodeAcceptsAFrameOfExactlyTheLimitAndRejectsOneMore() throws DecodeException {
        FrameCodec big = new FrameCodec(1000);
        FrameCodec codec = new FrameCodec(100);
        assertEquals(leaveOfSize(100), codec.decodeSized(big.encode(leaveOfSize(100))));

        ByteBuffer tooLarge = big.encode(leaveOfSize(101));
        DecodeException sized = assertThrows(DecodeException.class, () -> codec.decodeSized(tooLarge));
        assertTrue(sized.reason().contains("frame.size: 97 (+4 size prefix) exceeds frameBytesMax 100"),
                sized::reason);
        ByteBuffer body = tooLarge.duplicate().position(FrameCodec.SIZE_BYTES);
        DecodeException unsized = assertThrows(DecodeException.class, () -> codec.decode(body));
        assertTrue(unsized.reason().contains("frame: 101 bytes (size prefix included) exceed frameBytesMax 100"),
                unsized::reason);
    }

    @Test
    void hugeDeclaredSizeIsRejectedWithoutReadingFurther() {
        byte[] whole = new WireBytes().int32(Integer.MAX_VALUE).raw(WireBytes.request(ApiKey.CONSULT, 3).body())
                .body();
        DecodeException e = ExpectDecode.failsSized(new FrameCodec(), whole);
        assertTrue(e.reason().contains("exceeds frameBytesMax"), e::reason);
    }

    @Test
    void stringsUpToTheInt16MaximumEncode() throws DecodeException {
        FrameCodec codec = new FrameCodec();
        Frame ascii = Frame.request(1, new LeaveRequest("a".repeat(32767), "", null));
        assertEquals(ascii, codec.decodeSized(codec.encode(ascii)));
        // 8191 four-byte characters and one three-byte character: 32767 bytes.
        Frame supplementary = Frame.request(1, new LeaveRequest("😀".repeat(8191) + "€", "", null));
        assertEquals(supplementary, codec.decodeSized(codec.encode(supplementary)));
    }

    @Test
    void stringsOverTheInt16MaximumDoNotEncode() {
        FrameCodec codec = new FrameCodec();
        Frame ascii = Frame.request(1, new LeaveRequest("a".repeat(32768), "", null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> codec.encode(ascii));
        assertEquals("LeaveRequest.group_id: 32768 UTF-8 bytes exceed the string maximum of 32767", e.getMessage());

        // Only 10923 chars, but 32769 bytes: the limit is on bytes.
        Frame multiByte = Frame.request(1, new LeaveRequest("g", "€".repeat(10923), null));
        e = assertThrows(IllegalArgumentException.class, () -> codec.encodedSize(multiByte));
        assertTrue(e.getMessage().startsWith("LeaveRequest.consumer_id: 32769 UTF-8 bytes"), e::getMessage);
    }

    @Test
    void unpairedSurrogatesDoNotEncode() {
        Frame frame = Frame.request(1, new StartRequest(1, 1, List.of(
                new PartitionAssignment("t", "1-0", 0, 0), new PartitionAssignment("t\uD800x", "1-1", 0, 1))));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new FrameCodec().encode(frame));
        assertEquals("StartRequest.assigned[1].topic: unpaired surrogate at char 1 has no UTF-8 encoding",
                e.getMessage());
    }

    @Test
    void encodeToChecksRoomBeforeWriting() {
        Frame frame = Frame.request(1, new PingRequest(1, 2, (short) 3));
        ByteBuffer out = ByteBuffer.allocate(18).position(1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new FrameCodec().encodeTo(frame, out));
        assertTrue(e.getMessage().contains("23 bytes does not fit the 17 bytes remaining"), e::getMessage);
        assertEquals(1, out.position());
    }
}
