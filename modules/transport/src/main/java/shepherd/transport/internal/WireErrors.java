package shepherd.transport.internal;

import java.nio.ByteBuffer;
import java.util.Optional;
import shepherd.protocol.ApiKey;
import shepherd.protocol.DecodeException;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.FrameCodec;
import shepherd.protocol.Response;
import shepherd.protocol.Responses;

/**
 * The one place where the transport turns a failure into an error code on the wire (CONVENTIONS 5).
 * <ul>
 *   <li>bad input (malformed, oversized, negative size): whatever {@link FrameCodec#errorReplyFor} says, which is
 *       INVALID_REQUEST, or UNSUPPORTED_VERSION for a version we do not speak, when the frame was a request whose
 *       header could be read, and no reply otherwise; the connection is closed after it;
 *   <li>a handler that threw on a request: UNKNOWN (the fault is ours, the peer may retry);
 *   <li>a response too large for {@code frameBytesMax}: UNKNOWN.
 * </ul>
 */
final class WireErrors {
    private WireErrors() {}

    static Optional<ByteBuffer> replyToMalformed(FrameCodec codec, DecodeException e) {
        return codec.errorReplyFor(e);
    }

    static Response handlerFailed(ApiKey api) {
        return Responses.errorResponse(api, ErrorCode.UNKNOWN);
    }

    static Response responseTooLarge(ApiKey api) {
        return Responses.errorResponse(api, ErrorCode.UNKNOWN);
    }
}
