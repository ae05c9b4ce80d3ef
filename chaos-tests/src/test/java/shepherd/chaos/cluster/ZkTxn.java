package shepherd.chaos.cluster;

import java.util.List;

/**
 * One transaction of a ZooKeeper transaction log, decoded: what {@link ZkTxnHistory} interprets and reports.
 *
 * @param zxid its position in ZooKeeper's one total order of writes
 * @param session the client session that issued it (the header's clientId)
 * @param timeMs the leader's wall clock when it proposed it
 * @param type ZooKeeper's operation name ({@code create}, {@code setData}, {@code multi}, {@code closeSession}, …)
 * @param ops what it changed, in order; a single operation is a list of one, a session event an empty list
 * @param error 0 if it changed the tree; else the error code of the operation that failed (a failed multi is
 *     logged but changes nothing)
 * @param logs how many members' logs hold it (1 as read from one log; the union counts)
 */
public record ZkTxn(long zxid, long session, long timeMs, String type, List<ZkOp> ops, int error, int logs) {
    public ZkTxn {
        ops = List.copyOf(ops);
    }

    /** Whether it changed the tree (a failed operation or multi is in the log but did nothing). */
    public boolean applied() {
        return error == 0;
    }

    public List<String> paths() {
        return ops.stream().map(ZkOp::path).toList();
    }

    ZkTxn withLogs(int count) {
        return new ZkTxn(zxid, session, timeMs, type, ops, error, count);
    }

    @Override
    public String toString() {
        return "0x" + Long.toHexString(zxid) + " session 0x" + Long.toHexString(session) + " " + type
                + (applied() ? "" : " FAILED(" + error + ")") + " " + ops + " in " + logs + " logs";
    }

    /**
     * One change of a transaction.
     *
     * @param version for {@link Kind#SET_DATA} the data version it produced, for {@link Kind#CHECK} the version it
     *     required, else -1
     * @param data the new value for creates and setData, else empty
     */
    public record ZkOp(Kind kind, String path, byte[] data, int version) {
        public enum Kind { CREATE, SET_DATA, DELETE, CHECK }

        public ZkOp {
            data = data == null ? new byte[0] : data;
        }

        static ZkOp create(String path, byte[] data) {
            return new ZkOp(Kind.CREATE, path, data, -1);
        }

        static ZkOp setData(String path, byte[] data, int newVersion) {
            return new ZkOp(Kind.SET_DATA, path, data, newVersion);
        }

        static ZkOp delete(String path) {
            return new ZkOp(Kind.DELETE, path, null, -1);
        }

        static ZkOp check(String path, int version) {
            return new ZkOp(Kind.CHECK, path, null, version);
        }

        @Override
        public String toString() {
            return kind + " " + path + (version >= 0 ? " v" + version : "");
        }
    }
}
