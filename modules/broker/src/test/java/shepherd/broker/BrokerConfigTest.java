package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import shepherd.coordination.CoordinatorConfig;
import shepherd.coordination.GroupAssignors;

class BrokerConfigTest {

    private static Properties props(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return p;
    }

    @Test
    void onlyTheBrokerIdIsRequiredAndTheDefaultsAreSensible() {
        BrokerConfig c = BrokerConfig.fromProperties(props("broker.id", "7"));
        assertEquals(7, c.brokerId());
        assertEquals("0.0.0.0", c.listenHost());
        assertEquals(9092, c.listenPort());
        assertEquals("", c.advertisedHost());
        assertEquals(0, c.advertisedPort());
        assertEquals("127.0.0.1:2181", c.zookeeperConnect());
        assertEquals(6_000, c.sessionTimeoutMs());
        assertEquals(1 << 20, c.frameBytesMax());
        CoordinatorConfig core = c.coordinatorConfig();
        assertEquals(7, core.brokerId());
        assertEquals(6_000, core.sessionTimeoutMs());
        assertEquals(500, core.messageDelayMaxMs());
        assertEquals(1 << 20, c.transportConfig().frameBytesMax());
    }

    @Test
    void aMissingBrokerIdIsNamed() {
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> BrokerConfig.fromProperties(props("listen.port", "9092")));
        assertEquals("broker.id", e.key());
        assertTrue(e.getMessage().startsWith("broker.id is required"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "session.timeout.ms         | 12      | session.timeout.ms must be between 1000 and 600000, got 12",
        "session.timeout.ms         | 6s      | session.timeout.ms must be an integer between 1000 and 600000, got '6s'",
        "broker.id                  | -1      | broker.id must be between 0 and 2147483647, got -1",
        "listen.port                | 70000   | listen.port must be between 0 and 65535, got 70000",
        "advertised.port            | -5      | advertised.port must be between 0 and 65535, got -5",
        "clock.drift.ppm            | 200000  | clock.drift.ppm must be between 0 and 100000, got 200000",
        "message.delay.max.ms       | -1      | message.delay.max.ms must be between 0 and 60000, got -1",
        "rebalance.stop.timeout.ms  | 0       | rebalance.stop.timeout.ms must be between 10 and 600000, got 0",
        "rebalance.start.timeout.ms | 9999999 | rebalance.start.timeout.ms must be between 10 and 600000, got 9999999",
        "frame.bytes.max            | 16      | frame.bytes.max must be between 32 and 67108864, got 16",
        "request.timeout.ms         | 0       | request.timeout.ms must be between 1 and 600000, got 0",
        "lease.safety.margin.ms     | 2000    | lease.safety.margin.ms must be below session.timeout.ms / 3 (2000), got 2000",
        "handover.grace.ms          | -1      | handover.grace.ms must be between 0 and 600000, got -1",
        "group.assignor.default     | Range   | group.assignor.default: unknown assignor \"Range\"; known assignors: range, roundrobin, sticky",
        "group.assignor.overrides   | orders=stickyy | group.assignor.overrides: unknown assignor \"stickyy\"; known assignors: range, roundrobin, sticky, got 'orders=stickyy'",
        "group.assignor.overrides   | orders  | group.assignor.overrides has a malformed entry 'orders' (expected group=assignor[,group=assignor...]), got 'orders'",
        "group.assignor.overrides   | a=range,,b=sticky | group.assignor.overrides has a malformed entry '' (expected group=assignor[,group=assignor...]), got 'a=range,,b=sticky'",
        "group.assignor.overrides   | a=range,a=sticky | group.assignor.overrides names group 'a' twice, got 'a=range,a=sticky'",
        "group.assignor.overrides   | a/b=range | group.assignor.overrides: group id 'a/b' has the character '/' at index 1; allowed are letters, digits, '.', '_' and '-', got 'a/b=range'",
    })
    void aBadValueIsRejectedNamingKeyValueAndRange(String key, String value, String message) {
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> BrokerConfig.fromProperties(props("broker.id", "1", key, value)));
        assertEquals(key, e.key());
        assertEquals(value, e.value());
        assertEquals(message, e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "''",
        "zk1:2181,,zk2:2181",
        "zk1:0",
        "zk1:abc",
        "zk1:2181/shepherd/",
        "zk1:2181//x",
        ":2181",
    })
    void aMalformedConnectStringIsRejected(String connect) {
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> BrokerConfig.fromProperties(props("broker.id", "1", "zookeeper.connect", connect)));
        assertEquals("zookeeper.connect", e.key());
        assertTrue(e.getMessage().startsWith("zookeeper.connect"), e.getMessage());
        assertTrue(e.getMessage().contains("host:port"), e.getMessage());
    }

    @Test
    void severalServersAndAChrootAreAccepted() {
        BrokerConfig c = BrokerConfig.fromProperties(
                props("broker.id", "1", "zookeeper.connect", "zk1:2181,zk2:2182,zk3/shepherd/prod"));
        assertEquals("zk1:2181,zk2:2182,zk3/shepherd/prod", c.zookeeperConnect());
    }

    @Test
    void anUnknownKeyIsRejectedRatherThanIgnored() {
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> BrokerConfig.fromProperties(props("broker.id", "1", "session.timout.ms", "5000")));
        assertEquals("session.timout.ms", e.key());
        assertTrue(e.getMessage().startsWith("unknown key session.timout.ms"), e.getMessage());
    }

    @Test
    void overridesApplyOnTopAndAreValidatedToo() {
        BrokerConfig base = BrokerConfig.fromProperties(props("broker.id", "1", "listen.port", "9000"));
        BrokerConfig c = base.withOverrides(Map.of("listen.port", "9100", "advertised.host", "b1.example"));
        assertEquals(9100, c.listenPort());
        assertEquals("b1.example", c.advertisedHost());
        assertEquals(1, c.brokerId());
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> base.withOverrides(Map.of("session.timeout.ms", "12")));
        assertEquals("session.timeout.ms must be between 1000 and 600000, got 12", e.getMessage());
    }

    @Test
    void groupAssignorsAreReadCheckedAndHandedToTheCoordinator() {
        BrokerConfig c = BrokerConfig.fromProperties(props("broker.id", "1", "group.assignor.default", "sticky",
                "group.assignor.overrides", " orders=roundrobin , audit.log=range"));
        GroupAssignors expected = new GroupAssignors("sticky", Map.of("orders", "roundrobin", "audit.log", "range"));
        assertEquals(expected, c.assignors());
        assertEquals(expected, c.coordinatorConfig().assignors());
        assertEquals(c, BrokerConfig.fromProperties(c.toProperties()));
        assertEquals(GroupAssignors.DEFAULT, BrokerConfig.defaults(1, "zk:2181").coordinatorConfig().assignors());
    }

    @Test
    void propertiesRoundTrip() {
        BrokerConfig c = BrokerConfig.defaults(3, "a:1,b:2/x").withOverrides(Map.of("advertised.host", "h"));
        assertEquals(c, BrokerConfig.fromProperties(c.toProperties()));
    }

    @Test
    void theRecordConstructorValidatesAsWell() {
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> new BrokerConfig(1, "0.0.0.0", 9092, "", 0, "zk:2181", 500, 2_000, 5_000, 100, 500, 1_000,
                        1 << 20, 10_000, 30_000, 1_000, 0, "", BrokerConfig.METRICS_OFF, true, GroupAssignors.DEFAULT));
        assertEquals("session.timeout.ms", e.key());
    }

    @Test
    void metricsAreOffUnlessAPortIsGiven() {
        BrokerConfig c = BrokerConfig.fromProperties(props("broker.id", "1"));
        assertEquals(BrokerConfig.METRICS_OFF, c.metricsPort());
        assertFalse(c.metricsEnabled());
        assertFalse(c.toProperties().containsKey("metrics.port"), "off must round-trip as an absent key");
    }

    @Test
    void theMetricsHostDefaultsToTheListenHost() {
        BrokerConfig c = BrokerConfig.fromProperties(props("broker.id", "1", "listen.host", "10.1.2.3",
                "metrics.port", "9404"));
        assertTrue(c.metricsEnabled());
        assertEquals(9404, c.metricsPort());
        assertEquals("", c.metricsHost());
        assertEquals("10.1.2.3", c.metricsBindHost());
        BrokerConfig own = c.withOverrides(Map.of("metrics.host", "127.0.0.1"));
        assertEquals("127.0.0.1", own.metricsBindHost());
        assertEquals(own, BrokerConfig.fromProperties(own.toProperties()));
    }

    @Test
    void portZeroAsksForAFreePortAndAnEmptyValueTurnsMetricsOff() {
        BrokerConfig c = BrokerConfig.fromProperties(props("broker.id", "1", "metrics.port", "0"));
        assertTrue(c.metricsEnabled());
        assertEquals(0, c.metricsPort());
        assertFalse(c.withOverrides(Map.of("metrics.port", " ")).metricsEnabled());
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "65536", "9404x", "http", "99999999999"})
    void aBadMetricsPortIsRejectedNamingKeyAndValue(String value) {
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> BrokerConfig.fromProperties(props("broker.id", "1", "metrics.port", value)));
        assertEquals("metrics.port", e.key());
        assertEquals(value, e.value());
        assertTrue(e.getMessage().startsWith("metrics.port must be an integer between 0 and 65535"), e.getMessage());
        assertTrue(e.getMessage().endsWith("got '" + value + "'"), e.getMessage());
    }

    @Test
    void theRecordConstructorRejectsAMetricsPortOutOfRange() {
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> new BrokerConfig(1, "0.0.0.0", 9092, "", 0, "zk:2181", 6_000, 2_000, 5_000, 100, 500, 1_000,
                        1 << 20, 10_000, 30_000, 1_000, 0, "", 70_000, true, GroupAssignors.DEFAULT));
        assertEquals("metrics.port", e.key());
    }

    // test.fencing: the chaos suite's negative control, refused unless a test build permits it.

    @Test
    void fencingIsOnByDefaultAndAProductionFileNeverNamesTheTestKey() {
        BrokerConfig c = BrokerConfig.fromProperties(props("broker.id", "1"));
        assertTrue(c.fencing());
        assertFalse(c.toProperties().containsKey(BrokerConfig.TEST_FENCING));
        assertTrue(BrokerConfig.fromProperties(props("broker.id", "1", "test.fencing", "enabled")).fencing());
    }

    @Test
    void fencingDisabledIsRefusedWithoutATestSupportProvider() {
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> BrokerConfig.fromProperties(props("broker.id", "1", "test.fencing", "disabled")));
        assertEquals("test.fencing", e.key());
        assertEquals("disabled", e.value());
        assertTrue(e.getMessage().contains("test.fencing=disabled is available only in fault-injection test builds"),
                e.getMessage());
        assertTrue(e.getMessage().contains("no shepherd.broker.spi.TestSupport provider permitting it was found"),
                e.getMessage());
    }

    @Test
    void fencingDisabledIsRefusedByTheRecordConstructorAndByOverridesToo() {
        assertThrows(InvalidConfigException.class,
                () -> new BrokerConfig(1, "0.0.0.0", 9092, "", 0, "zk:2181", 6_000, 2_000, 5_000, 100, 500, 1_000,
                        1 << 20, 10_000, 30_000, 1_000, 0, "", BrokerConfig.METRICS_OFF, false, GroupAssignors.DEFAULT));
        BrokerConfig c = BrokerConfig.defaults(1, "zk:2181");
        assertThrows(InvalidConfigException.class, () -> c.withOverrides(Map.of("test.fencing", "disabled")));
    }

    @Test
    void fencingDisabledPassesOnlyWhenSomeProviderPermitsIt() {
        BrokerConfig.throwIfFencingOffNotPermitted(List.of(() -> false, () -> true));
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> BrokerConfig.throwIfFencingOffNotPermitted(List.of(() -> false)));
        assertEquals("test.fencing", e.key());
    }

    @Test
    void anUnknownFencingValueIsRefusedNamingKeyAndValue() {
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> BrokerConfig.fromProperties(props("broker.id", "1", "test.fencing", "off")));
        assertEquals("test.fencing", e.key());
        assertEquals("test.fencing must be 'enabled' or 'disabled' (test builds only), got 'off'", e.getMessage());
    }
}
