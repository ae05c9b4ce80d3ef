package shepherd.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.util.List;
import shepherd.protocol.DecodeException;
import shepherd.protocol.FrameCodec;

/**
 * Turns a frame body (the bytes after the size field) into a {@link shepherd.protocol.Frame} with the protocol's
 * {@link FrameCodec}, the only decoder of the wire format. A {@link DecodeException} becomes an
 * {@link InboundViolation} carrying the reply the codec says is due; after it, bodies are released undecoded, since
 * the connection is closing.
 */
final class FrameBodyDecoder extends MessageToMessageDecoder<ByteBuf> {
    private final FrameCodec codec;
    private boolean failed;

    FrameBodyDecoder(FrameCodec codec) {
        super(ByteBuf.class);
        this.codec = codec;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf body, List<Object> out) {
        if (failed) {
            return;
        }
        try {
            out.add(codec.decode(body.nioBuffer()));
        } catch (DecodeException e) {
            failed = true;
            out.add(new InboundViolation(e.getMessage(), WireErrors.replyToMalformed(codec, e), e));
        }
    }
}
