package shepherd.transport.internal;

import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * What the decoders pass up the pipeline instead of a frame when the peer's input cannot be accepted: the reason to
 * log, the reply DESIGN §3 requires (whole frame, size prefix included), if one is due, and the underlying cause.
 * {@link ChannelConnection} answers with {@code reply}, then closes; nothing after it is decoded.
 */
record InboundViolation(String reason, Optional<ByteBuffer> reply, Throwable cause) {}
