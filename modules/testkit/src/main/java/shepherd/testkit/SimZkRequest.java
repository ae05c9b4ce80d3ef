package shepherd.testkit;

import java.util.List;
import java.util.function.Consumer;

/**
 * One request of a {@link SimZooKeeper.Client}, from the call that issued it until its callback ran. The factories
 * check the paths, so a malformed request throws in the caller and never reaches the server.
 */
final class SimZkRequest {
    enum Op {
        CREATE, SET_DATA, DELETE, GET_DATA, GET_CHILDREN, EXISTS, MULTI, MULTI_READ, SYNC
    }

    final Op op;
    final String path;
    final Object data;
    final boolean ephemeral;
    final int version;
    final boolean watch;
    final List<SimZkOp> ops;
    /** The reads of a {@code MULTI_READ}. */
    final List<SimZkRead> reads;
    final Consumer<SimZkResult> callback;
    long sentAtMs;
    /** The reply reached the client, so a watch this request set is one the client knows of. */
    boolean replyArrived;
    boolean completed;

    private SimZkRequest(Op op, String path, Object data, boolean ephemeral, int version, boolean watch,
            List<SimZkOp> ops, List<SimZkRead> reads, Consumer<SimZkResult> callback) {
        this.op = op;
        this.path = path;
        this.data = data;
        this.ephemeral = ephemeral;
        this.version = version;
        this.watch = watch;
        this.ops = ops;
        this.reads = reads;
        this.callback = callback;
    }

    static SimZkRequest create(String path, Object data, boolean ephemeral, Consumer<SimZkResult> cb) {
        return new SimZkRequest(Op.CREATE, SimZkPaths.validate(path), data, ephemeral, -1, false, null, null, cb);
    }

    static SimZkRequest setData(String path, Object data, int expectedVersion, Consumer<SimZkResult> cb) {
        return new SimZkRequest(Op.SET_DATA, SimZkPaths.validate(path), data, false, expectedVersion, false, null,
                null, cb);
    }

    static SimZkRequest delete(String path, int expectedVersion, Consumer<SimZkResult> cb) {
        if (SimZkPaths.validate(path).equals("/")) {
            throw new IllegalArgumentException("cannot delete the root");
        }
        return new SimZkRequest(Op.DELETE, path, null, false, expectedVersion, false, null, null, cb);
    }

    static SimZkRequest getData(String path, boolean watch, Consumer<SimZkResult> cb) {
        return new SimZkRequest(Op.GET_DATA, SimZkPaths.validate(path), null, false, -1, watch, null, null, cb);
    }

    static SimZkRequest getChildren(String path, boolean watch, Consumer<SimZkResult> cb) {
        return new SimZkRequest(Op.GET_CHILDREN, SimZkPaths.validate(path), null, false, -1, watch, null, null, cb);
    }

    static SimZkRequest exists(String path, boolean watch, Consumer<SimZkResult> cb) {
        return new SimZkRequest(Op.EXISTS, SimZkPaths.validate(path), null, false, -1, watch, null, null, cb);
    }

    static SimZkRequest multi(List<SimZkOp> ops, Consumer<SimZkResult> cb) {
        List<SimZkOp> copy = List.copyOf(ops);
        for (SimZkOp op : copy) {
            SimZkPaths.validate(op.path());
            if (op instanceof SimZkOp.Delete && op.path().equals("/")) {
                throw new IllegalArgumentException("cannot delete the root");
            }
        }
        return new SimZkRequest(Op.MULTI, null, null, false, -1, false, copy, null, cb);
    }

    static SimZkRequest multiRead(List<SimZkRead> reads, Consumer<SimZkResult> cb) {
        List<SimZkRead> copy = List.copyOf(reads);
        copy.forEach(read -> SimZkPaths.validate(read.path()));
        return new SimZkRequest(Op.MULTI_READ, null, null, false, -1, false, null, copy, cb);
    }

    static SimZkRequest sync(Consumer<SimZkResult> cb) {
        return new SimZkRequest(Op.SYNC, null, null, false, -1, false, null, null, cb);
    }
}
