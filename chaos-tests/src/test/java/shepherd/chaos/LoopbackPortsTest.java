package shepherd.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link LoopbackPorts} hands out ports no outgoing connection can be given meanwhile. */
class LoopbackPortsTest {

    @Test
    void portsComeFromOutsideTheEphemeralRangeAndNeverTwice() {
        LoopbackPorts.Range ephemeral = LoopbackPorts.ephemeralRange();
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = LoopbackPorts.free();
            assertFalse(port >= ephemeral.low() && port <= ephemeral.high(),
                    port + " is in the ephemeral range " + ephemeral);
            assertTrue(port >= LoopbackPorts.LOWEST, port + " is below " + LoopbackPorts.LOWEST);
            assertTrue(seen.add(port), port + " was handed out twice");
        }
    }

    @Test
    void aReservedPortIsBoundUntilItsSocketCloses() throws Exception {
        try (ServerSocket reserved = LoopbackPorts.reserve()) {
            assertTrue(reserved.isBound());
            assertEquals("127.0.0.1", reserved.getInetAddress().getHostAddress());
        }
    }

    @Test
    void theLargerStretchBesideTheEphemeralRangeIsChosen() {
        assertEquals(new LoopbackPorts.Range(10_000, 32_767),
                LoopbackPorts.candidates(new LoopbackPorts.Range(32_768, 60_999)));
        assertEquals(new LoopbackPorts.Range(20_001, 65_535),
                LoopbackPorts.candidates(new LoopbackPorts.Range(1_024, 20_000)));
        assertEquals(0, LoopbackPorts.candidates(new LoopbackPorts.Range(1_024, 65_000)).size(),
                "no room beside the range: the kernel chooses");
    }

    @Test
    void anUnreadableRangeFallsBackToLinuxDefault() {
        assertEquals(new LoopbackPorts.Range(49_152, 65_535), LoopbackPorts.parseRange("49152\t65535\n"));
        assertEquals(LoopbackPorts.DEFAULT_EPHEMERAL, LoopbackPorts.parseRange("garbage"));
        assertEquals(LoopbackPorts.DEFAULT_EPHEMERAL, LoopbackPorts.parseRange("60999 32768"));
        assertEquals(LoopbackPorts.DEFAULT_EPHEMERAL, LoopbackPorts.parseRange("0 70000"));
    }
}
