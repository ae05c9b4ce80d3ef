package shepherd.protocol.internal;

/**
 * Raised by {@link Reader} when the bytes do not follow the layout. {@code FrameCodec} turns it into the public
 * {@code DecodeException}, adding what it knows of the frame's header. No stack trace: malformed input is an
 * expected outcome, and the message (field path and value) is the whole story.
 */
public final class Malformed extends Exception {
    public Malformed(String reason) {
        super(reason, null, false, false);
    }
}
