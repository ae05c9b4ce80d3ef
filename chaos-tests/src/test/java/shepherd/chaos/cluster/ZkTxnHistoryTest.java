package shepherd.chaos.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import shepherd.chaos.cluster.ZkTxn.ZkOp;

class ZkTxnHistoryTest {

    @Test
    void aTransactionOnAMajorityOfLogsCommittedOneOnFewerDidNot() {
        ZkTxn shared = txn(1, "/a");
        ZkTxn laterShared = txn(3, "/c");
        ZkTxn onlyOnTheDeadLeader = txn(2, "/b");

        ZkTxnHistory.Union union = ZkTxnHistory.union(List.of(
                List.of(shared, onlyOnTheDeadLeader),
                List.of(shared, laterShared),
                List.of(laterShared)));

        assertEquals(List.of(1L, 3L), union.committed().stream().map(ZkTxn::zxid).toList());
        assertEquals(List.of(2, 2), union.committed().stream().map(ZkTxn::logs).toList());
        assertEquals(List.of(2L), union.discarded().stream().map(ZkTxn::zxid).toList());
    }

    @Test
    void aLogCountsOncePerZxid() {
        ZkTxn t = txn(1, "/a");

        ZkTxnHistory.Union union = ZkTxnHistory.union(List.of(List.of(t, t), List.of(), List.of()));

        assertEquals(List.of(), union.committed());
    }

    @Test
    void logsThatDisagreeAboutAZxidAreABrokenEnsemble() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ZkTxnHistory.union(List.of(List.of(txn(1, "/a")), List.of(txn(1, "/b")))));
        assertTrue(e.getMessage().contains("zxid 0x1"), e.getMessage());
    }

    private static ZkTxn txn(long zxid, String path) {
        return new ZkTxn(zxid, 7, 1000, "create", List.of(ZkOp.create(path, new byte[0])), 0, 1);
    }
}
