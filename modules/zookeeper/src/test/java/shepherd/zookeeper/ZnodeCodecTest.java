package shepherd.zookeeper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import shepherd.coordination.Registration;
import shepherd.coordination.assign.StreamId;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.TopicStreams;
import shepherd.protocol.WildcardKind;
import shepherd.protocol.WildcardSubscription;
import shepherd.zookeeper.ZnodeCodec.EpochValue;
import shepherd.zookeeper.ZnodeCodec.GroupValue;
import shepherd.zookeeper.ZnodeCodec.OwnerValue;

class ZnodeCodecTest {
    private static final String PATH = "/consumers/groups/g/ids/c1";

    @Test
    void everyValueRoundTrips() throws Exception {
        BrokerInfo broker = new BrokerInfo(3, "host-\"ä\"\n\t\\😀", 9092, "host-1700000000000");
        assertEquals(broker, ZnodeCodec.decodeBroker(PATH, 3, ZnodeCodec.encodeBroker(broker)));
        assertEquals(7, ZnodeCodec.decodePartitions(PATH, ZnodeCodec.encodePartitions(7)));
        assertEquals(5, ZnodeCodec.decodeCoordinator(PATH, ZnodeCodec.encodeCoordinator(5)));
        EpochValue epoch = new EpochValue(2, true);
        assertEquals(epoch, ZnodeCodec.decodeEpoch(PATH, ZnodeCodec.encodeEpoch(epoch)));
        GroupValue group = new GroupValue(12, "sticky");
        assertEquals(group, ZnodeCodec.decodeGroup(PATH, ZnodeCodec.encodeGroup(group)));
        OwnerValue owner = new OwnerValue(new StreamId("consumer-a", 3), 12);
        assertEquals(owner, ZnodeCodec.decodeOwner(PATH, ZnodeCodec.encodeOwner(owner)));
        assertEquals(Long.MAX_VALUE, ZnodeCodec.decodeOffset(PATH, ZnodeCodec.encodeOffset(Long.MAX_VALUE)));
        byte[] reported = ZnodeCodec.encodeOffset(42, "consumer-a");
        assertEquals(42, ZnodeCodec.decodeOffset(PATH, reported));
        assertEquals(java.util.Optional.of("consumer-a"), ZnodeCodec.decodeOffsetReporter(PATH, reported));
        assertEquals(java.util.Optional.empty(), ZnodeCodec.decodeOffsetReporter(PATH, ZnodeCodec.encodeOffset(42)));
        for (Registration r : registrations()) {
            assertEquals(r, ZnodeCodec.decodeRegistration(PATH, ZnodeCodec.encodeRegistration(r)));
        }
    }

    @Test
    void loneSurrogateInAStringStillRoundTrips() throws Exception {
        BrokerInfo broker = new BrokerInfo(1, "x\uD800y", 1, "c");
        assertEquals(broker, ZnodeCodec.decodeBroker(PATH, 1, ZnodeCodec.encodeBroker(broker)));
    }

    @Test
    void encodingIsTheDocumentedJson() {
        assertEquals("{\"version\":1,\"generation\":4,\"assignor\":\"range\"}",
                new String(ZnodeCodec.encodeGroup(new GroupValue(4, "range")), StandardCharsets.UTF_8));
        assertEquals("{\"version\":1,\"partitions\":2}",
                new String(ZnodeCodec.encodePartitions(2), StandardCharsets.UTF_8));
    }

    static List<Registration> registrations() {
        return List.of(
                new Registration(new StaticSubscription(List.of(new TopicStreams("a", 2), new TopicStreams("b", 1))),
                        true, OffsetReset.SMALLEST, 1000, (short) 3),
                new Registration(new WildcardSubscription(WildcardKind.WHITELIST, "t[0-9]+\\.x", 4), false,
                        OffsetReset.LARGEST, 250, (short) 0),
                new Registration(new WildcardSubscription(WildcardKind.BLACKLIST, ".*", 1), false,
                        OffsetReset.LARGEST, Integer.MAX_VALUE, Short.MAX_VALUE));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "   ",
        "{",
        "{\"version\":1,\"subscription\":{\"kind\":\"static\",\"topics\":[",
        "{\"version\":1",
        "[1,2]",
        "\"text\"",
        "null",
        "{\"version\":2,\"partitions\":1}",
        "{\"partitions\":1}",
        "{\"version\":\"1\",\"partitions\":1}",
        "{\"version\":1,\"partitions\":\"3\"}",
        "{\"version\":1,\"partitions\":-1}",
        "{\"version\":1,\"partitions\":1.5}",
        "{\"version\":1,\"partitions\":1e3}",
        "{\"version\":1,\"partitions\":99999999999999999999999999}",
        "{\"version\":1,\"partitions\":2147483648}",
        "{\"version\":1,\"partitions\":01}",
        "{\"version\":1,\"partitions\":1} trailing",
        "{\"version\":1,\"version\":1,\"partitions\":1}",
        "{\"version\":1,\"partitions\":true}",
        "{\"version\":1,\"partitions\":null}",
        "{'version':1}",
        "{\"version\":1,\"partitions\":1,}",
        "{\"version\":1,\"x\":\"\\q\",\"partitions\":1}",
        "{\"version\":1,\"x\":\"\\u12\",\"partitions\":1}",
        "{\"version\":1,\"x\":\"unterminated",
        "{\"version\":1,\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],\"partitions\":1}",
        "tru",
        "-",
    })
    void garbageIsATypedErrorNamingThePath(String text) {
        ZnodeFormatException e = assertThrows(ZnodeFormatException.class,
                () -> ZnodeCodec.decodePartitions("/brokers/topics/t/1", text.getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains("/brokers/topics/t/1"), e.getMessage());
        assertEquals("/brokers/topics/t/1", e.path());
    }

    @Test
    void invalidUtf8IsATypedError() {
        byte[] bytes = {'{', '"', 'v', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}'};
        ZnodeFormatException e = assertThrows(ZnodeFormatException.class, () -> ZnodeCodec.decodeOffset(PATH, bytes));
        assertTrue(e.getMessage().contains("UTF-8"), e.getMessage());
        assertThrows(ZnodeFormatException.class, () -> ZnodeCodec.decodeOffset(PATH, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"version\":1,\"subscription\":{\"kind\":\"static\",\"topics\":[]},\"auto_commit\":true,"
                + "\"auto_offset_reset\":\"middle\",\"ping_interval_ms\":1000,\"max_ping_retries\":3}",
        "{\"version\":1,\"subscription\":{\"kind\":\"regex\"},\"auto_commit\":true,"
                + "\"auto_offset_reset\":\"smallest\",\"ping_interval_ms\":1000,\"max_ping_retries\":3}",
        "{\"version\":1,\"subscription\":{\"kind\":\"static\",\"topics\":[1]},\"auto_commit\":true,"
                + "\"auto_offset_reset\":\"smallest\",\"ping_interval_ms\":1000,\"max_ping_retries\":3}",
        "{\"version\":1,\"subscription\":{\"kind\":\"static\",\"topics\":[{\"topic\":\"a\",\"streams\":0}]},"
                + "\"auto_commit\":true,\"auto_offset_reset\":\"smallest\",\"ping_interval_ms\":1000,"
                + "\"max_ping_retries\":3}",
        "{\"version\":1,\"subscription\":{\"kind\":\"whitelist\",\"pattern\":\"a\",\"streams\":1},"
                + "\"auto_commit\":\"yes\",\"auto_offset_reset\":\"smallest\",\"ping_interval_ms\":1000,"
                + "\"max_ping_retries\":3}",
        "{\"version\":1,\"subscription\":{\"kind\":\"whitelist\",\"pattern\":\"a\",\"streams\":1},"
                + "\"auto_commit\":true,\"auto_offset_reset\":\"smallest\",\"ping_interval_ms\":1000,"
                + "\"max_ping_retries\":40000}",
        "{\"version\":1,\"subscription\":[],\"auto_commit\":true}",
    })
    void badRegistrationsAreTypedErrors(String text) {
        assertThrows(ZnodeFormatException.class,
                () -> ZnodeCodec.decodeRegistration(PATH, text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void badOwnerStreamAndBadPortAreTypedErrors() {
        assertThrows(ZnodeFormatException.class, () -> ZnodeCodec.decodeOwner(PATH,
                "{\"version\":1,\"stream\":\"no-dash-number-x\",\"generation\":1}".getBytes(StandardCharsets.UTF_8)));
        assertThrows(ZnodeFormatException.class, () -> ZnodeCodec.decodeBroker(PATH, 1,
                "{\"version\":1,\"host\":\"h\",\"port\":70000,\"creator_id\":\"c\"}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void randomBytesNeverThrowAnythingButTheTypedError() {
        java.util.Random random = new java.util.Random(42);
        byte[] valid = ZnodeCodec.encodeRegistration(registrations().get(0));
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = i % 2 == 0 ? new byte[random.nextInt(40)] : valid.clone();
            if (i % 2 == 0) {
                random.nextBytes(bytes);
            } else {
                bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
                bytes = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
            }
            try {
                ZnodeCodec.decodeRegistration(PATH, bytes);
            } catch (ZnodeFormatException expected) {
                // the only exception allowed
            }
        }
    }
}
