package shepherd.protocol;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

/** Assertions about decoding raw bytes. */
final class ExpectDecode {
    private ExpectDecode() {}

    /** Decoding {@code body} (no size prefix) fails; returns the failure. */
    static DecodeException fails(FrameCodec codec, byte[] body) {
        return assertThrows(DecodeException.class, () -> codec.decode(ByteBuffer.wrap(body)));
    }

    /** Decoding {@code whole} (with size prefix) fails; returns the failure. */
    static DecodeException failsSized(FrameCodec codec, byte[] whole) {
        return assertThrows(DecodeException.class, () -> codec.decodeSized(ByteBuffer.wrap(whole)));
    }

    /** Decoding {@code body} fails, and the reason contains every one of {@code fragments}. */
    static DecodeException failsMentioning(FrameCodec codec, byte[] body, String... fragments) {
        DecodeException failure = fails(codec, body);
        for (String fragment : fragments) {
            assertTrue(failure.reason().contains(fragment),
                    () -> "Reason '" + failure.reason() + "' should mention '" + fragment + "'");
        }
        return failure;
    }
}
