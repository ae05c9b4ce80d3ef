package shepherd.zookeeper;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outstanding ZooKeeper reads of one logical read, joined on the adapter's thread: the first failure answers it,
 * NoNode reads as empty (a missing group or topic is an empty one). {@code sentAtMs} is when the first request left,
 * so it never overstates how fresh the answer is. Every answer is also recorded in the session's {@link KnownNodes},
 * in the order ZooKeeper gave it, for the writer to plan from.
 *
 * <p><b>Batched.</b> Reads that set no watch are not sent one by one: those asked for during one task of the
 * adapter's thread leave together as read-only multis of at most {@value #MAX_BATCH_OPS} operations (ZooKeeper 3.6+:
 * each operation answered on its own, a missing node failing only its own). A group of 64 partitions is some 140
 * nodes: pipelined one request each, they take an idle server 7.4 ms (p50), in one multi 0.3 ms. Watched reads
 * stay single requests: a multi sets no watch. Should a batch's answer be too
 * large for the client (a hand-written giant node; the client then drops the connection), that read is done one
 * request per node for the rest of the session.
 */
final class ReadJoin {
    static final int MAX_BATCH_OPS = 256;
    private static final Logger LOG = LoggerFactory.getLogger(ReadJoin.class);

    private final ZooKeeperAdapter adapter;
    private final ZkSession s;
    private final Object key;
    private final Consumer<String> onFailure;
    private final Runnable done;
    final long sentAtMs;
    private final boolean batching;
    /** The reads asked for since the last flush, each with what to do with its answer. */
    private final List<BatchedRead> batch = new ArrayList<>();
    private int pending;
    private boolean failed;

    /**
     * @param key   what this read is, for the session to remember that it must not be batched
     * @param batch false: every node in a request of its own, as if the session had stopped batching this read
     */
    ReadJoin(ZooKeeperAdapter adapter, ZkSession s, Object key, Consumer<String> onFailure, Runnable done,
             boolean batch) {
        this.adapter = adapter;
        this.s = s;
        this.key = key;
        this.onFailure = onFailure;
        this.done = done;
        this.sentAtMs = adapter.now();
        this.batching = batch && !s.readOneByOne.contains(key);
    }

    void children(String path, boolean watch, Consumer<List<String>> then) {
        pending++;
        if (batching && !watch) {
            enqueue(Op.getChildren(path), r -> childrenAnswered(path, false, codeOf(r),
                    r instanceof OpResult.GetChildrenResult c ? c.getChildren() : null, then));
            return;
        }
        s.zk.getChildren(path, watch, (rc, p, ctx, children) -> adapter.answered(s, rc,
                () -> childrenAnswered(path, watch, Code.get(rc), children, then)));
    }

    private void childrenAnswered(String path, boolean watch, Code code, List<String> children,
                                  Consumer<List<String>> then) {
        if (code == Code.OK) {
            adapter.knownNodes().children(path, children);
        } else if (code == Code.NONODE) {
            adapter.knownNodes().absent(path);
        }
        if (code == Code.NONODE && watch) {
            // No children watch can be set on a missing node: watch for its creation instead.
            s.zk.exists(path, true, (rc2, p2, ctx2, stat) -> adapter.answered(s, rc2, () -> { }));
        }
        answered(code, () -> then.accept(children == null ? List.of() : children));
    }

    void data(String path, boolean watch, DataThen then) {
        pending++;
        if (batching && !watch) {
            enqueue(Op.getData(path), r -> {
                OpResult.GetDataResult d = r instanceof OpResult.GetDataResult g ? g : null;
                dataAnswered(path, codeOf(r), d == null ? null : d.getData(), d == null ? null : d.getStat(), then);
            });
            return;
        }
        s.zk.getData(path, watch, (rc, p, ctx, data, stat) -> adapter.answered(s, rc,
                () -> dataAnswered(path, Code.get(rc), data, stat, then)));
    }

    private void dataAnswered(String path, Code code, byte[] data, Stat stat, DataThen then) {
        if (code == Code.OK) {
            adapter.knownNodes().present(path);
        } else if (code == Code.NONODE) {
            adapter.knownNodes().absent(path);
        }
        answered(code, () -> {
            if (code == Code.OK) {
                then.accept(data, stat);
            }
        });
    }

    private record BatchedRead(Op op, Consumer<OpResult> then) {}

    private static Code codeOf(OpResult r) {
        return r instanceof OpResult.ErrorResult e ? Code.get(e.getErr()) : Code.OK;
    }

    /**
     * The first read of a task schedules the flush behind the task, so every read the task asks for (a whole level
     * of the tree: all of a group's owner nodes, say) joins the same batch.
     */
    private void enqueue(Op op, Consumer<OpResult> then) {
        if (batch.isEmpty()) {
            adapter.post(s, this::flush);
        }
        batch.add(new BatchedRead(op, then));
    }

    private void flush() {
        for (int from = 0; from < batch.size(); from += MAX_BATCH_OPS) {
            int to = Math.min(batch.size(), from + MAX_BATCH_OPS);
            List<BatchedRead> reads = List.copyOf(batch.subList(from, to));
            List<Op> ops = reads.stream().map(BatchedRead::op).toList();
            s.zk.multi(ops, (rc, p, ctx, results) -> adapter.answered(s, rc, () -> {
                // rc is the first operation's error when one failed (a missing node): each op has its own answer.
                Code code = Code.get(rc);
                if (results != null && results.size() == reads.size()) {
                    for (int i = 0; i < reads.size(); i++) {
                        reads.get(i).then().accept(results.get(i));
                    }
                    return;
                }
                if (code == Code.CONNECTIONLOSS && s.readOneByOne.add(key)) {
                    LOG.warn("a batched read of {} ({} nodes) lost the ZooKeeper connection; reading it one node at"
                            + " a time for the rest of this session, in case its answer was too large", key,
                            ops.size());
                }
                answered(code == Code.OK ? Code.SYSTEMERROR : code, () -> { });
            }));
        }
        batch.clear();
    }

    private void answered(Code code, Runnable then) {
        if (failed) {
            return;
        }
        if (code != Code.OK && code != Code.NONODE) {
            failed = true;
            onFailure.accept(code.toString());
            return;
        }
        then.run();
        if (--pending == 0) {
            done.run();
        }
    }

    interface DataThen {
        void accept(byte[] data, Stat stat);
    }
}
