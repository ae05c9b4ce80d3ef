package shepherd.chaos.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryCodecTest {
    @Test
    void everyKindOfEntrySurvivesALine() {
        List<Entry> all = List.of(
                new Entry.FetchStarted(1, "g", "c1", "t", "1-0", 2, 3, -1),
                new Entry.FetchStopped(2, "g", "c1", "t", "1-0", 2, 3, 17),
                new Entry.Delivered(3, "g", "c1", "t", "1-0", 16, 3),
                new Entry.Rejected(4, "g", "c1", "Start", 1, "STALE_COORDINATOR_EPOCH"),
                new Entry.EpochSeen(5, "g", "c1", 2),
                new Entry.Died(6, "g", "c1"),
                new Entry.Produced(7, "t", "1-0", 16),
                new Entry.Elected(8, 2, 3, 0x1_0000_0004L),
                new Entry.Written(9, 2, 3, 0x1_0000_0005L, "owners"),
                new Entry.OffsetRead(10, "g", "t", "1-0", 17),
                new Entry.OwnerRead(11, "g", "t", "1-0", "c1", 3),
                new Entry.Healed(12),
                new Entry.Fault(13, "pause-coordinator", "inject", "broker 2 SIGSTOP"),
                new Entry.BrokerEvent(14, 2, "election won", "broker=2 epoch=3 previousHandedOver=false"));
        assertEquals(Entry.class.getPermittedSubclasses().length, all.size(), "a kind of entry is not covered");
        for (Entry e : all) {
            assertEquals(e, HistoryCodec.decode(HistoryCodec.encode(e)));
        }
    }

    @Test
    void aTornLastLineIsCountedNotFatal(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("h.jsonl");
        Files.writeString(f, HistoryCodec.encode(new Entry.Healed(1)) + "\n{\"type\":\"Heal");
        HistoryCodec.Read read = HistoryCodec.read(f);
        assertEquals(List.of(new Entry.Healed(1)), read.entries());
        assertEquals(1, read.undecodable());
    }

    @Test
    void anUnknownTypeIsRefusedWithTheLine() {
        var e = assertThrows(RuntimeException.class, () -> HistoryCodec.decode("{\"type\":\"Nope\"}"));
        assertEquals(true, e.getMessage().contains("Nope"));
    }
}
