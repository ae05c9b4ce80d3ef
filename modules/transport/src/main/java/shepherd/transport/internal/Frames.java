package shepherd.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import shepherd.protocol.Frame;
import shepherd.protocol.FrameCodec;

/** A frame encoded by the protocol's codec, copied into a pooled Netty buffer of exactly its size. */
final class Frames {
    private Frames() {}

    /**
     * The whole frame, size prefix included, in a buffer from {@code alloc}.
     *
     * @throws shepherd.protocol.FrameTooLargeException if it exceeds the codec's {@code frameBytesMax}
     */
    static ByteBuf encode(ByteBufAllocator alloc, FrameCodec codec, Frame frame) {
        FrameCodec.Measured measured = codec.measure(frame); // FrameTooLargeException before Netty allocates
        int size = measured.bytes();
        ByteBuf out = alloc.ioBuffer(size, size);
        try {
            codec.encodeTo(measured, out.nioBuffer(0, size));
            out.writerIndex(size);
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }
}
