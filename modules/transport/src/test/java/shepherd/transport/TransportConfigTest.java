package shepherd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import shepherd.protocol.FrameCodec;

class TransportConfigTest {
    private static final TransportConfig DEFAULTS = TransportConfig.defaults();

    @Test
    void defaultsAreValidAndDocumented() {
        assertEquals(FrameCodec.DEFAULT_FRAME_BYTES_MAX, DEFAULTS.frameBytesMax());
        assertEquals(10_000, DEFAULTS.requestTimeoutMs());
        assertEquals(1_024, DEFAULTS.pendingRequestsMax());
        assertEquals(5_000, DEFAULTS.connectTimeoutMs());
        assertEquals(256 * 1024, DEFAULTS.writeBufferHighWaterMarkBytes());
        assertEquals(128 * 1024, DEFAULTS.writeBufferLowWaterMarkBytes());
        assertTrue(DEFAULTS.ioThreads() >= 1 && DEFAULTS.ioThreads() <= 4);
        assertEquals(5_000, DEFAULTS.closeTimeoutMs());
    }

    @Test
    void invalidValuesAreRejectedNamingTheFieldAndValue() {
        assertRejected(c -> c.withFrameBytesMax(31), "frameBytesMax must be >= 32, was 31");
        assertRejected(c -> c.withRequestTimeoutMs(0), "requestTimeoutMs must be > 0, was 0");
        assertRejected(c -> c.withPendingRequestsMax(-1), "pendingRequestsMax must be > 0, was -1");
        assertRejected(c -> c.withConnectTimeoutMs(-5), "connectTimeoutMs must be > 0, was -5");
        assertRejected(c -> c.withConnectTimeoutMs(1L << 40),
                "connectTimeoutMs must be at most 2147483647, was 1099511627776");
        assertRejected(c -> c.withWriteBufferWaterMarksBytes(0, 10), "writeBufferLowWaterMarkBytes must be > 0, was 0");
        assertRejected(c -> c.withWriteBufferWaterMarksBytes(100, 99),
                "writeBufferHighWaterMarkBytes must be >= writeBufferLowWaterMarkBytes (100), was 99");
        assertRejected(c -> c.withIoThreads(0), "ioThreads must be > 0, was 0");
        assertRejected(c -> c.withCloseTimeoutMs(0), "closeTimeoutMs must be > 0, was 0");
    }

    @Test
    void withersChangeOneFieldOnly() {
        TransportConfig changed = DEFAULTS.withRequestTimeoutMs(77);
        assertEquals(77, changed.requestTimeoutMs());
        assertEquals(DEFAULTS, changed.withRequestTimeoutMs(DEFAULTS.requestTimeoutMs()));
        TransportConfig marks = DEFAULTS.withWriteBufferWaterMarksBytes(1, 2);
        assertEquals(1, marks.writeBufferLowWaterMarkBytes());
        assertEquals(2, marks.writeBufferHighWaterMarkBytes());
    }

    private static void assertRejected(UnaryOperator<TransportConfig> change, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> change.apply(DEFAULTS));
        assertEquals(message, e.getMessage());
    }
}
