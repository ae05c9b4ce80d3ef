package shepherd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** DESIGN §3: "A malformed frame gets an INVALID_REQUEST response when a correlation id could be read". */
class ErrorReplyTest {
    private static final FrameCodec CODEC = new FrameCodec();

    private static Frame replyTo(byte[] body) throws DecodeException {
        DecodeException failure = ExpectDecode.fails(CODEC, body);
        ByteBuffer reply = CODEC.errorReplyFor(failure).orElseThrow();
        return CODEC.decodeSized(reply);
    }

    @ParameterizedTest
    @EnumSource(ApiKey.class)
    void malformedRequestOfAKnownApiGetsItsMinimalResponseWithInvalidRequest(ApiKey api) throws DecodeException {
        // A one-byte body is malformed for every request: trailing for Consult, truncated for the rest.
        byte[] body = WireBytes.request(api, 42).int8(0x7F).body();
        Frame expected = Frame.response(42, Responses.errorResponse(api, ErrorCode.INVALID_REQUEST));
        assertEquals(expected, replyTo(body));
    }

    @Test
    void unsupportedVersionIsAnsweredAtOurVersionWithUnsupportedVersion() throws DecodeException {
        byte[] body = WireBytes.header(0, ApiKey.REGISTER.id(), 3, 43).string("g1").body();
        Frame reply = replyTo(body);
        assertEquals(new Header(FrameKind.RESPONSE, ApiKey.REGISTER, ApiKey.REGISTER.maxVersion(), 43),
                reply.header());
        assertEquals(RegisterResponse.error(ErrorCode.UNSUPPORTED_VERSION), reply.message());
    }

    @Test
    void unknownApiKeyGetsABareReplyThePeerCanMatchToItsRequest() {
        byte[] body = WireBytes.header(0, 300, 2, 44).int64(1).body();
        ByteBuffer reply = CODEC.errorReplyFor(ExpectDecode.fails(CODEC, body)).orElseThrow();

        assertEquals(4 + 9 + 2, reply.remaining());
        assertEquals(ErrorCode.INVALID_REQUEST.code(), reply.getShort(4 + 9));
        DecodeException atThePeer = ExpectDecode.failsSized(CODEC, Hex.bytes(reply));
        assertEquals(OptionalInt.of(44), atThePeer.correlationId());
        assertEquals(Optional.of(FrameKind.RESPONSE), atThePeer.kind());
        assertEquals(300, atThePeer.rawApiKey());
        assertEquals(2, atThePeer.rawApiVersion());
        assertTrue(atThePeer.reason().contains("unknown api key 300"), atThePeer::reason);
    }

    @Test
    void oversizedRequestWithAReadableHeaderIsAnswered() throws DecodeException {
        FrameCodec small = new FrameCodec(64);
        byte[] whole = WireBytes.request(ApiKey.LEAVE, 45).string("g".repeat(100)).string("c1").int32(-1).sized();
        DecodeException failure = ExpectDecode.failsSized(small, whole);
        assertTrue(failure.reason().startsWith("frame.size"), failure::reason);
        Frame reply = small.decodeSized(small.errorReplyFor(failure).orElseThrow());
        assertEquals(Frame.response(45, LeaveResponse.error(ErrorCode.INVALID_REQUEST)), reply);
    }

    @Test
    void malformedResponsesAreNeverAnswered() {
        DecodeException failure = ExpectDecode.fails(CODEC, WireBytes.response(ApiKey.START, 46).int16(99).body());
        assertEquals(Optional.of(FrameKind.RESPONSE), failure.kind());
        assertEquals(Optional.empty(), CODEC.errorReplyFor(failure));
    }

    @Test
    void noReplyWithoutACorrelationId() {
        DecodeException failure = ExpectDecode.fails(CODEC, new byte[] {0, 0, 1, 0, 0, 0});
        assertEquals(OptionalInt.empty(), failure.correlationId());
        assertEquals(Optional.empty(), CODEC.errorReplyFor(failure));

        DecodeException noSize = ExpectDecode.failsSized(CODEC, new byte[] {0, 0});
        assertEquals(Optional.empty(), CODEC.errorReplyFor(noSize));
    }

    @Test
    void noReplyWhenTheKindIsUnknown() {
        DecodeException failure = ExpectDecode.fails(CODEC, WireBytes.header(5, 1, 0, 47).body());
        assertEquals(OptionalInt.of(47), failure.correlationId());
        assertEquals(Optional.empty(), CODEC.errorReplyFor(failure));
    }
}
