package shepherd.chaos.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import shepherd.chaos.history.Entry;

class BrokerLogsTest {
    @Test
    void theBrokersFactsBecomeEventsOnTheRunsClock(@TempDir Path dir) throws Exception {
        ZoneId zone = ZoneId.systemDefault();
        long startWall = LocalDate.of(2026, 12, 3).atTime(LocalTime.parse("08:45:00.000")).atZone(zone).toInstant()
                .toEpochMilli();
        Path log = dir.resolve("broker-3.log");
        Files.writeString(log, String.join("\n",
                "08:45:08.162 INFO  [shepherd-broker-loop-3] shepherd.broker.BrokerLoop - election won "
                        + "broker=3 epoch=1",
                "08:45:08.200 INFO  [main] shepherd.transport.TransportServer - Listening on /127.0.0.1:1",
                "08:45:16.094 WARN  [shepherd-broker-loop-3] shepherd.broker.BrokerLoop - zookeeper session expired "
                        + "broker=3 role=ACTIVE epoch=1 (reset, running for election again)",
                "08:45:16.1"));
        List<Entry> events = BrokerLogs.read(log, 3, startWall, 1_000_000_000L);
        assertEquals(List.of(
                new Entry.BrokerEvent(1_000_000_000L + 8_162_000_000L, 3, "election won", "broker=3 epoch=1"),
                new Entry.BrokerEvent(1_000_000_000L + 16_094_000_000L, 3, "zookeeper session expired",
                        "broker=3 role=ACTIVE epoch=1 (reset, running for election again)")), events);
    }
}
