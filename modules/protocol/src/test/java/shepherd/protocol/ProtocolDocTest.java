package shepherd.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keeps docs/protocol.md honest: its worked example must be exactly what the codec produces. */
class ProtocolDocTest {
    private static final Path DOC = Path.of("../../docs/protocol.md");

    private static final Frame EXAMPLE = Frame.request(3, new RegisterRequest("g1", "c1",
            new StaticSubscription(List.of(new TopicStreams("orders", 2), new TopicStreams("café", 1))),
            true, OffsetReset.SMALLEST, 1000, (short) 3, 7));

    @Test
    void workedExampleIsWhatTheCodecProduces() throws IOException, DecodeException {
        byte[] documented = Hex.parse(hexBlock(Files.readString(DOC)));
        FrameCodec codec = new FrameCodec();
        assertArrayEquals(documented, Hex.bytes(codec.encode(EXAMPLE)));
        assertEquals(EXAMPLE, codec.decodeSized(ByteBuffer.wrap(documented)));
        assertArrayEquals(Hex.golden("register-request-static"), documented, "docs and golden file agree");
    }

    private static String hexBlock(String markdown) {
        int start = markdown.indexOf("```hex\n");
        assertTrue(start >= 0, "docs/protocol.md has a ```hex block");
        int end = markdown.indexOf("```", start + 7);
        return markdown.substring(start + 7, end);
    }
}
