package shepherd.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import shepherd.protocol.OffsetReset;

class ConsumerConfigTest {

    private static ConsumerConfig.Builder valid() {
        return ConsumerConfig.builder().bootstrap("127.0.0.1:9092, localhost:9093").groupId("billing")
                .source("file", Map.of("root", "/tmp"));
    }

    private static void refused(String setting, String fragment, UnaryOperator<ConsumerConfig.Builder> change) {
        InvalidConsumerConfigException e = assertThrows(InvalidConsumerConfigException.class,
                () -> change.apply(valid()).build());
        assertEquals(setting, e.setting());
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    @Test
    void defaultsFollowKafkasHighLevelConsumer() {
        ConsumerConfig c = valid().build();
        assertEquals(2, c.bootstrap().size());
        assertTrue(c.autoCommit());
        assertEquals(OffsetReset.LARGEST, c.autoOffsetReset());
        assertEquals(-1, c.consumerTimeoutMs());
        assertEquals(3_000, c.leaseMs());
        assertTrue(c.consumerId().matches("[A-Za-z0-9._-]+-[0-9a-f]+"), c.consumerId());
    }

    @Test
    void twoDefaultConsumerIdsDiffer() {
        assertTrue(!valid().build().consumerId().equals(valid().build().consumerId()));
    }

    @Test
    void everyBadSettingIsNamedWithItsValue() {
        refused("bootstrap", "'nohost' is not host:port", b -> b.bootstrap("nohost"));
        refused("bootstrap", "outside [1, 65535]", b -> b.bootstrap("h:70000"));
        refused("bootstrap", "not a number", b -> b.bootstrap("h:x"));
        refused("bootstrap", "no broker", b -> ConsumerConfig.builder().groupId("g"));
        refused("groupId", "is required", b -> b.groupId(null));
        refused("groupId", "'a/b' has the character '/' at index 1", b -> b.groupId("a/b"));
        refused("consumerId", "is reserved", b -> b.consumerId(".."));
        refused("consumerId", "is empty", b -> b.consumerId(""));
        refused("pingIntervalMs", "5 is outside [10, 3600000]", b -> b.pingIntervalMs(5));
        refused("maxPingRetries", "101 is outside [0, 100]", b -> b.maxPingRetries(101));
        refused("backoffMaxMs", "50 is outside [100,", b -> b.backoffMs(100, 50));
        refused("queuedRecordsMax", "0 is outside", b -> b.queuedRecordsMax(0));
        refused("consumerTimeoutMs", "-5 is neither -1", b -> b.consumerTimeoutMs(-5));
        refused("autoOffsetReset", "'earliest' is neither", b -> b.autoOffsetReset("earliest"));
    }

    @Test
    void aBadTopicFilterIsRefusedWithTheRegexError() {
        InvalidConsumerConfigException e = assertThrows(InvalidConsumerConfigException.class,
                () -> TopicFilter.whitelist("orders-(["));
        assertTrue(e.getMessage().contains("'orders-(['"), e.getMessage());
    }

    @Test
    void streamsAreCreatedOncePerConsumerAndCountsAreChecked() {
        ShepherdConsumer c = ShepherdConsumer.create(valid().source(new MemorySource(), Map.of()).build());
        try {
            assertThrows(InvalidConsumerConfigException.class, () -> c.createMessageStreams(Map.of("orders", 0)));
            assertThrows(InvalidConsumerConfigException.class, () -> c.createMessageStreams(Map.of("a/b", 1)));
            c.createMessageStreams(Map.of("orders", 2));
            IllegalStateException twice = assertThrows(IllegalStateException.class,
                    () -> c.createMessageStreamsByFilter(".*", 1));
            assertTrue(twice.getMessage().contains("subscribes once"));
        } finally {
            c.shutdown();
        }
        assertThrows(IllegalStateException.class, () -> c.createMessageStreams(Map.of("orders", 1)));
    }
}
