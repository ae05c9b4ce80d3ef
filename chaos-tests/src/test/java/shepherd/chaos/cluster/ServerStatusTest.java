package shepherd.chaos.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

class ServerStatusTest {

    @Test
    void aFollowerReportsItsModeAndZxid() {
        String answer = """
                Zookeeper version: 3.9.5-..., built on 2025-01-01 00:00 UTC
                Latency min/avg/max: 0/0.0/0
                Received: 12
                Sent: 11
                Connections: 1
                Outstanding: 0
                Zxid: 0x200000007
                Mode: follower
                Node count: 5
                """;
        ServerStatus status = ServerStatus.parse(answer);
        assertEquals(ServerStatus.Mode.FOLLOWER, status.mode());
        assertEquals(0x200000007L, status.zxid());
        assertEquals(2, status.zxidEpoch());
    }

    @Test
    void aMemberOutsideAQuorumIsNotServing() {
        ServerStatus status = ServerStatus.parse("This ZooKeeper instance is not currently serving requests\n");
        assertEquals(ServerStatus.Mode.NOT_SERVING, status.mode());
        assertFalse(status.mode().inQuorum());
    }

    @Test
    void anUnknownModeIsNotServing() {
        assertEquals(ServerStatus.Mode.NOT_SERVING, ServerStatus.parse("Mode: read-only\n").mode());
    }
}
