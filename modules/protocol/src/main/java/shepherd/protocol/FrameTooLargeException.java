package shepherd.protocol;

/**
 * Thrown when encoding a frame that would exceed the codec's {@code frameBytesMax}: a typed rejection rather than a
 * frame the peer would refuse (CONVENTIONS 7). Sizes include the 4-byte size prefix.
 */
public final class FrameTooLargeException extends IllegalArgumentException {
    private final long frameBytes;
    private final int frameBytesMax;

    FrameTooLargeException(Frame frame, long frameBytes, int frameBytesMax) {
        super(frame.message().getClass().getSimpleName() + " frame of " + frameBytes
                + " bytes exceeds frameBytesMax " + frameBytesMax);
        this.frameBytes = frameBytes;
        this.frameBytesMax = frameBytesMax;
    }

    /** The size the frame would have had, size prefix included. */
    public long frameBytes() {
        return frameBytes;
    }

    public int frameBytesMax() {
        return frameBytesMax;
    }
}
