package shepherd.chaos.cluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.jute.Record;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.server.ByteBufferInputStream;
import org.apache.zookeeper.server.persistence.FileTxnLog;
import org.apache.zookeeper.server.persistence.TxnLog.TxnIterator;
import org.apache.zookeeper.txn.CheckVersionTxn;
import org.apache.zookeeper.txn.CreateContainerTxn;
import org.apache.zookeeper.txn.CreateTTLTxn;
import org.apache.zookeeper.txn.CreateTxn;
import org.apache.zookeeper.txn.DeleteTxn;
import org.apache.zookeeper.txn.ErrorTxn;
import org.apache.zookeeper.txn.MultiTxn;
import org.apache.zookeeper.txn.SetDataTxn;
import org.apache.zookeeper.txn.Txn;
import org.apache.zookeeper.txn.TxnHeader;
import shepherd.chaos.cluster.ZkTxn.ZkOp;

/**
 * Reads every transaction of one member's logs ({@code <dataDir>/version-2/log.*}) with ZooKeeper's own
 * {@link FileTxnLog} iterator, from zxid 0. A record that cannot be read (a torn write at the end of a live log)
 * ends that log; a record whose body cannot be decoded is skipped; both are counted as undecodable. A failed
 * operation is logged too ({@code error}, or a {@code multi} whose parts are all {@link ErrorTxn}s): it is kept,
 * marked as not applied.
 */
final class TxnLogReader {
    /** A log holding more than this is not a chaos run's: refuse rather than fill the heap. */
    static final int TXNS_PER_LOG_MAX = 2_000_000;

    /** What one member's logs hold. */
    record LogRead(Path dataDir, List<ZkTxn> txns, int undecodable, List<String> problems) {}

    private TxnLogReader() {}

    static LogRead read(Path dataDir) throws IOException {
        Path logDir = dataDir.resolve("version-2");
        if (!Files.isDirectory(logDir)) {
            return new LogRead(dataDir, List.of(), 0, List.of("no " + logDir));
        }
        List<ZkTxn> txns = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        try (FileTxnLog log = new FileTxnLog(logDir.toFile()); TxnIterator it = log.read(0)) {
            for (boolean more = it.getHeader() != null; more; more = it.next()) {
                if (txns.size() >= TXNS_PER_LOG_MAX) {
                    throw new IllegalStateException(logDir + " holds over " + TXNS_PER_LOG_MAX + " transactions");
                }
                try {
                    txns.add(decode(it.getHeader(), it.getTxn()));
                } catch (IOException | RuntimeException e) {
                    problems.add("zxid 0x" + Long.toHexString(it.getHeader().getZxid()) + ": " + e);
                }
            }
        } catch (IOException e) {
            // A record that cannot be read (a torn write at the end of a live log, a bad checksum) ends this log.
            problems.add("stopped reading " + logDir + " after " + txns.size() + " transactions: " + e);
        }
        return new LogRead(dataDir, txns, problems.size(), problems);
    }

    static ZkTxn decode(TxnHeader header, Record txn) throws IOException {
        List<ZkOp> ops = new ArrayList<>();
        List<Integer> errors = new ArrayList<>();
        if (header.getType() == OpCode.multi) {
            for (Txn part : ((MultiTxn) txn).getTxns()) {
                Record record = partRecord(part);
                if (record instanceof ErrorTxn failed) {
                    errors.add(failed.getErr());
                } else {
                    addOp(ops, record);
                }
            }
        } else if (txn instanceof ErrorTxn failed) {
            errors.add(failed.getErr());
        } else {
            addOp(ops, txn);
        }
        int error = errors.isEmpty() ? 0 : failureCode(errors);
        return new ZkTxn(header.getZxid(), header.getClientId(), header.getTime(), typeName(header.getType()),
                error == 0 ? ops : List.of(), error, 1);
    }

    /**
     * The code of the operation that failed: in a failed multi every part is an {@link ErrorTxn}, those before the
     * failure with OK (0), those after with RUNTIMEINCONSISTENCY (-2).
     */
    private static int failureCode(List<Integer> errors) {
        int runtimeInconsistency = KeeperException.Code.RUNTIMEINCONSISTENCY.intValue();
        return errors.stream().filter(e -> e != 0 && e != runtimeInconsistency).findFirst()
                .orElse(runtimeInconsistency);
    }

    private static Record partRecord(Txn part) throws IOException {
        Record record = switch (part.getType()) {
            case OpCode.create, OpCode.create2 -> new CreateTxn();
            case OpCode.createContainer -> new CreateContainerTxn();
            case OpCode.createTTL -> new CreateTTLTxn();
            case OpCode.delete, OpCode.deleteContainer -> new DeleteTxn();
            case OpCode.setData -> new SetDataTxn();
            case OpCode.check -> new CheckVersionTxn();
            case OpCode.error -> new ErrorTxn();
            default -> throw new IOException("multi part of unexpected type " + typeName(part.getType()));
        };
        ByteBufferInputStream.byteBuffer2Record(ByteBuffer.wrap(part.getData()), record);
        return record;
    }

    /** Adds the change a record makes; records that change no znode (sessions, ACLs, reconfig) add nothing. */
    private static void addOp(List<ZkOp> ops, Record record) {
        ZkOp op = record == null ? null : opOf(record);
        if (op != null) {
            ops.add(op);
        }
    }

    private static ZkOp opOf(Record record) {
        if (record instanceof CreateTxn c) {
            return ZkOp.create(c.getPath(), c.getData());
        } else if (record instanceof CreateContainerTxn c) {
            return ZkOp.create(c.getPath(), c.getData());
        } else if (record instanceof CreateTTLTxn c) {
            return ZkOp.create(c.getPath(), c.getData());
        } else if (record instanceof SetDataTxn s) {
            return ZkOp.setData(s.getPath(), s.getData(), s.getVersion());
        } else if (record instanceof DeleteTxn d) {
            return ZkOp.delete(d.getPath());
        } else if (record instanceof CheckVersionTxn c) {
            // ZooKeeper logs a check with checkAndIncVersion's result: the required version plus one.
            return ZkOp.check(c.getPath(), c.getVersion() - 1);
        }
        return null;
    }

    static String typeName(int type) {
        return switch (type) {
            case OpCode.create -> "create";
            case OpCode.create2 -> "create2";
            case OpCode.createContainer -> "createContainer";
            case OpCode.createTTL -> "createTTL";
            case OpCode.delete -> "delete";
            case OpCode.deleteContainer -> "deleteContainer";
            case OpCode.setData -> "setData";
            case OpCode.setACL -> "setACL";
            case OpCode.check -> "check";
            case OpCode.multi -> "multi";
            case OpCode.reconfig -> "reconfig";
            case OpCode.createSession -> "createSession";
            case OpCode.closeSession -> "closeSession";
            case OpCode.error -> "error";
            default -> "op" + type;
        };
    }
}
