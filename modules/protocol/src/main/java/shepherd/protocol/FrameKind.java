package shepherd.protocol;

import java.util.Optional;

/**
 * The header's {@code kind:int8}. Both ends of a connection send requests (the coordinator pings the consumer on
 * the connection the consumer opened), so every frame says whether it is a request or a response, and the receiver
 * knows which of its two correlation maps to use.
 */
public enum FrameKind {
    REQUEST(0),
    RESPONSE(1);

    private final byte code;

    FrameKind(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    public static Optional<FrameKind> forCode(byte code) {
        for (FrameKind kind : values()) {
            if (kind.code == code) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }

    /** The kind a frame carrying {@code message} must have. */
    public static FrameKind of(Message message) {
        return message instanceof Request ? REQUEST : RESPONSE;
    }
}
