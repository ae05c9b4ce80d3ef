package shepherd.chaos.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import shepherd.chaos.cluster.ZkTxn.ZkOp;
import shepherd.chaos.history.Entry;
import shepherd.coordination.assign.StreamId;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;
import shepherd.zookeeper.ZnodeCodec.EpochValue;
import shepherd.zookeeper.ZnodeCodec.OwnerValue;

class TxnInterpreterTest {
    private static final long A = 0xA;
    private static final long B = 0xB;
    private static final long ADMIN = 0xAD;
    private static final long WALL_MS = 1_000_000;
    private static final long NANO = 5_000_000_000L;
    private static final String OFFSET = ZkPaths.GROUPS + "/g/offsets/t/1-0";
    private static final String OWNER = ZkPaths.GROUPS + "/g/owners/t/1-0";

    private final List<ZkTxn> txns = new ArrayList<>();
    private long zxid = 0x100000000L;

    @Test
    void theBrokersElectionMultiSettlesTheEpochAtOnce() {
        txn(ADMIN, "create", ZkOp.create(ZkPaths.EPOCH, epoch(-1)));
        txn(A, "multi", coordinator(1), ZkOp.setData(ZkPaths.EPOCH, epoch(1), 1));
        long elected = zxid;
        txn(A, "multi", ZkOp.check(ZkPaths.EPOCH, 1), ZkOp.setData(OFFSET, ZnodeCodec.encodeOffset(7), 3),
                ZkOp.setData(OWNER, owner("c-0", 4), 2));
        long written = zxid;

        List<Entry> entries = interpret().entries();

        assertEquals(List.of(
                new Entry.Elected(entries.get(0).nanoTime(), 1, 1, elected),
                new Entry.Written(entries.get(1).nanoTime(), 1, 1, written,
                        "multi: SET_DATA " + OFFSET + " (+1 more)"),
                new Entry.OffsetRead(entries.get(2).nanoTime(), "g", "t", "1-0", 7),
                new Entry.OwnerRead(entries.get(3).nanoTime(), "g", "t", "1-0", "c", 4)), entries);
    }

    @Test
    void aFencedWriteCarriesTheEpochItChecksEvenIfStale() {
        txn(ADMIN, "create", ZkOp.create(ZkPaths.EPOCH, epoch(-1)));
        txn(A, "create", coordinator(1));
        txn(A, "setData", ZkOp.setData(ZkPaths.EPOCH, epoch(1), 1));
        txn(A, "multi", ZkOp.check(ZkPaths.EPOCH, 0), ZkOp.setData(OFFSET, ZnodeCodec.encodeOffset(7), 3));

        assertEquals(0, written(interpret()).get(0).epoch());
    }

    @Test
    void theHandoverFlagIsNoNewElection() {
        txn(ADMIN, "create", ZkOp.create(ZkPaths.EPOCH, epoch(-1)));
        txn(A, "multi", coordinator(1), ZkOp.setData(ZkPaths.EPOCH, epoch(1), 1));
        txn(A, "multi", ZkOp.check(ZkPaths.EPOCH, 1), ZkOp.setData(ZkPaths.EPOCH, epoch(1), 2));
        txn(B, "multi", coordinator(2), ZkOp.setData(ZkPaths.EPOCH, epoch(2), 3));

        assertEquals(List.of(1, 3), elected(interpret()).stream().map(Entry.Elected::epoch).toList());
    }

    @Test
    void withoutABumpTheElectionTakesTheEpochItFoundAndTheCreatesPlace() {
        txn(ADMIN, "create", ZkOp.create(ZkPaths.EPOCH, epoch(-1)));
        txn(A, "create", coordinator(1));
        long createdA = zxid;
        txn(ADMIN, "create", ZkOp.create(ZkPaths.BROKERS, new byte[0]));
        txn(A, "setData", ZkOp.setData(OFFSET, ZnodeCodec.encodeOffset(1), 1));
        txn(B, "create", coordinator(2));
        long createdB = zxid;
        txn(B, "setData", ZkOp.setData(OFFSET, ZnodeCodec.encodeOffset(2), 2));

        TxnInterpreter.Result result = interpret();

        assertEquals(List.of(new Entry.Elected(result.entries().get(0).nanoTime(), 1, 0, createdA)),
                result.entries().subList(0, 1));
        assertEquals(List.of(createdA, createdB), elected(result).stream().map(Entry.Elected::zxid).toList());
        assertEquals(List.of(0, 0), elected(result).stream().map(Entry.Elected::epoch).toList());
        assertEquals(List.of(0, 0), written(result).stream().map(Entry.Written::epoch).toList());
    }

    @Test
    void aClaimThatNeitherBumpsNorWritesElectsNobody() {
        txn(ADMIN, "create", ZkOp.create(ZkPaths.EPOCH, epoch(-1)));
        txn(A, "create", coordinator(1));

        assertEquals(List.of(), interpret().entries());
    }

    @Test
    void failedTransactionsChangeNothing() {
        txn(ADMIN, "create", ZkOp.create(ZkPaths.EPOCH, epoch(-1)));
        txn(A, "multi", coordinator(1), ZkOp.setData(ZkPaths.EPOCH, epoch(1), 1));
        txns.add(new ZkTxn(++zxid, A, WALL_MS, "multi", List.of(), -103, 1)); // BADVERSION

        assertEquals(1, interpret().entries().size());
    }

    @Test
    void nonCoordinatorWritesAreCountedAndTheirValuesStillRead() {
        txn(ADMIN, "create", ZkOp.create(OFFSET, ZnodeCodec.encodeOffset(0)));

        TxnInterpreter.Result result = interpret();

        assertEquals(1, result.foreignGroupWrites());
        assertEquals(List.of(new Entry.OffsetRead(result.entries().get(0).nanoTime(), "g", "t", "1-0", 0)),
                result.entries());
    }

    @Test
    void garbageValuesAreSkippedAndCounted() {
        txn(ADMIN, "create", ZkOp.create(OFFSET, "not json".getBytes(StandardCharsets.UTF_8)));
        txn(ADMIN, "setData", ZkOp.setData(OWNER, "{\"version\":1}".getBytes(StandardCharsets.UTF_8), 1));

        TxnInterpreter.Result result = interpret();

        assertEquals(2, result.garbageValues());
        assertEquals(List.of(), result.entries());
    }

    @Test
    void nanoTimesFollowTheWallClockAndStrictlyIncrease() {
        txns.add(new ZkTxn(1, ADMIN, WALL_MS + 3, "create", List.of(ZkOp.create(OFFSET, ZnodeCodec.encodeOffset(0))),
                0, 1));
        txns.add(new ZkTxn(2, ADMIN, WALL_MS + 2, "setData",
                List.of(ZkOp.setData(OFFSET, ZnodeCodec.encodeOffset(1), 1)), 0, 1));

        List<Entry> entries = interpret().entries();

        assertEquals(NANO + 3_000_000, entries.get(0).nanoTime());
        assertEquals(NANO + 3_000_001, entries.get(1).nanoTime(), "a clock step back keeps zxid order");
    }

    private void txn(long session, String type, ZkOp... ops) {
        txns.add(new ZkTxn(++zxid, session, WALL_MS + zxid % 1000, type, List.of(ops), 0, 2));
    }

    private TxnInterpreter.Result interpret() {
        return TxnInterpreter.interpret(txns, WALL_MS, NANO);
    }

    private static ZkOp coordinator(int broker) {
        return ZkOp.create(ZkPaths.COORDINATOR, ZnodeCodec.encodeCoordinator(broker));
    }

    private static byte[] epoch(int broker) {
        return ZnodeCodec.encodeEpoch(new EpochValue(broker, false));
    }

    private static byte[] owner(String stream, int generation) {
        return ZnodeCodec.encodeOwner(new OwnerValue(StreamId.parse(stream), generation));
    }

    private static List<Entry.Elected> elected(TxnInterpreter.Result result) {
        return result.entries().stream().filter(Entry.Elected.class::isInstance).map(Entry.Elected.class::cast)
                .toList();
    }

    private static List<Entry.Written> written(TxnInterpreter.Result result) {
        return result.entries().stream().filter(Entry.Written.class::isInstance).map(Entry.Written.class::cast)
                .toList();
    }
}
