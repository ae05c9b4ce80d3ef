package shepherd.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.nio.ByteBuffer;
import shepherd.protocol.DecodeException;
import shepherd.protocol.FrameCodec;
import shepherd.protocol.Header;

/**
 * Cuts the byte stream into frame bodies: reads {@code size:int32} and emits the {@code size} bytes after it (the
 * prefix stripped), as {@link FrameCodec#decode} expects them. {@code frameBytesMax} counts the prefix, as both
 * {@link FrameCodec} and {@link LengthFieldBasedFrameDecoder}'s {@code maxFrameLength} do.
 *
 * <p>Netty's decoder would fail an oversized frame with an exception as soon as it sees the size, before the
 * header, then skip the frame and carry on. DESIGN §3 wants both more and less: an answer when a correlation id can
 * be read, and no carrying on (a peer that sent a frame we refuse is closed; we never resynchronise on garbage). So
 * an unacceptable size (negative, or over the limit) is handled here before the parent sees it: we wait for the 9
 * header bytes (a bounded wait: 13 bytes in all), let the codec judge the size prefix and header
 * ({@link FrameCodec#decodeSized}, which fails on the size and reports the raw header), emit an
 * {@link InboundViolation} with the codec's reply, and from then on discard every byte. The body of an oversized
 * frame is never buffered.
 *
 * <p><b>Pausing.</b> While the channel's {@code autoRead} is off (the connection stopped reading the peer, see
 * {@link ChannelConnection}), no frame is cut: the parent would otherwise hand on every frame already in its buffer,
 * and a peer that packs thousands of small requests into one read could make us queue thousands of responses
 * after we decided to stop. Paused, we also keep the parent from asking for more bytes (it reads on when a read
 * decoded nothing and {@code autoRead} is off). Netty's read loop itself stops at {@code autoRead} off, so what is
 * buffered while paused is bounded by one read buffer plus one partial frame. {@link ChannelConnection} resumes
 * decoding by firing an empty buffer down the pipeline once it reads again.
 */
final class FrameLengthDecoder extends LengthFieldBasedFrameDecoder {
    private static final int SIZE_BYTES = FrameCodec.SIZE_BYTES;

    private final FrameCodec codec;
    private boolean failed;

    FrameLengthDecoder(FrameCodec codec) {
        // failFast; the parent's own limit never triggers, since decode() rejects bad sizes first.
        super(codec.frameBytesMax(), 0, SIZE_BYTES, 0, SIZE_BYTES, true);
        this.codec = codec;
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return null;
        }
        if (!ctx.channel().config().isAutoRead() || in.readableBytes() < SIZE_BYTES) {
            return null; // paused, or the size is not here yet
        }
        int size = in.getInt(in.readerIndex());
        if (size >= 0 && (long) size + SIZE_BYTES <= codec.frameBytesMax()) {
            return super.decode(ctx, in);
        }
        if (in.readableBytes() < SIZE_BYTES + Header.BYTES) {
            return null; // wait for the header: it may carry a correlation id to answer
        }
        failed = true;
        InboundViolation violation = judgeBadSize(in.nioBuffer(in.readerIndex(), SIZE_BYTES + Header.BYTES));
        in.skipBytes(in.readableBytes());
        return violation;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (!ctx.channel().config().isAutoRead()) {
            ctx.fireChannelReadComplete(); // paused on purpose: no read-more (see the class comment)
            return;
        }
        super.channelReadComplete(ctx);
    }

    private InboundViolation judgeBadSize(ByteBuffer sizeAndHeader) {
        try {
            codec.decodeSized(sizeAndHeader);
        } catch (DecodeException e) {
            return new InboundViolation(e.getMessage(), WireErrors.replyToMalformed(codec, e), e);
        }
        throw new IllegalStateException("FrameCodec.decodeSized accepted a frame whose size it should refuse");
    }
}
