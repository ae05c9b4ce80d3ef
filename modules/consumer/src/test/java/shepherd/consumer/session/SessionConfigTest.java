package shepherd.consumer.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.StaticSubscription;

class SessionConfigTest {

    private static SessionConfig config(int pingIntervalMs, int retries, List<BrokerInfo> brokers, long initialMs,
            long maxMs) {
        return new SessionConfig("g", "c", new StaticSubscription(List.of()), true, OffsetReset.LARGEST,
                pingIntervalMs, (short) retries, brokers, initialMs, maxMs);
    }

    @Test
    void leaseIsPingIntervalTimesRetriesPlusOne() {
        assertEquals(300, SessionDriver.config(true).leaseMs());
        assertEquals((long) Integer.MAX_VALUE * (Short.MAX_VALUE + 1L),
                config(Integer.MAX_VALUE, Short.MAX_VALUE, SessionDriver.BROKERS, 1, 1).leaseMs(), "no overflow");
    }

    @Test
    void backoffDoublesUpToItsCap() {
        SessionConfig c = config(100, 0, SessionDriver.BROKERS, 100, 1_000);
        assertEquals(List.of(100L, 200L, 400L, 800L, 1_000L, 1_000L),
                List.of(c.backoffMs(0), c.backoffMs(1), c.backoffMs(2), c.backoffMs(3), c.backoffMs(4),
                        c.backoffMs(64)));
    }

    @Property
    void backoffStaysWithinItsBounds(@ForAll @IntRange(min = 0, max = 1_000) int rounds,
            @ForAll @LongRange(min = 1, max = 1_000_000) long initialMs) {
        SessionConfig c = config(100, 0, SessionDriver.BROKERS, initialMs, SessionConfig.BACKOFF_MS_MAX);
        long backoffMs = c.backoffMs(rounds);
        assertEquals(true, backoffMs >= initialMs && backoffMs <= SessionConfig.BACKOFF_MS_MAX, "" + backoffMs);
    }

    @Test
    void nonsensicalSettingsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> config(0, 1, SessionDriver.BROKERS, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> config(100, -1, SessionDriver.BROKERS, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> config(100, 1, List.of(), 1, 1));
        assertThrows(IllegalArgumentException.class, () -> config(100, 1, SessionDriver.BROKERS, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> config(100, 1, SessionDriver.BROKERS, 10, 5));
        BrokerInfo b = SessionDriver.BROKERS.get(0);
        assertThrows(IllegalArgumentException.class, () -> config(100, 1, List.of(b, b), 1, 1));
    }
}
