package shepherd.zookeeper;

import java.util.List;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import shepherd.coordination.CoordinatorEvent;
import shepherd.coordination.ZkRead;

/**
 * The outstanding ZooKeeper reads of one logical read, issued in a pipeline and joined on the adapter's thread: the
 * first failure answers it, NoNode reads as empty (a missing group or topic is an empty one). {@code sentAtMs} is
 * when the first request left, so it never overstates how fresh the answer is. Every answer is also recorded in the
 * session's {@link KnownNodes}, in the order ZooKeeper gave it, for the writer to plan from.
 */
final class ReadJoin {
    private final ZooKeeperAdapter adapter;
    private final ZkSession s;
    private final Consumer<String> onFailure;
    private final Runnable done;
    final long sentAtMs;
    private int pending;
    private boolean failed;

    ReadJoin(ZooKeeperAdapter adapter, ZkSession s, ZkRead read, Runnable done) {
        this(adapter, s, reason -> adapter.emit(new CoordinatorEvent.ZkReadFailed(read, reason)), done);
    }

    ReadJoin(ZooKeeperAdapter adapter, ZkSession s, Consumer<String> onFailure, Runnable done) {
        this.adapter = adapter;
        this.s = s;
        this.onFailure = onFailure;
        this.done = done;
        this.sentAtMs = adapter.now();
    }

    void children(String path, boolean watch, Consumer<List<String>> then) {
        pending++;
        s.zk.getChildren(path, watch, (rc, p, ctx, children) -> adapter.post(s, () -> {
            Code code = Code.get(rc);
            if (code == Code.OK) {
                adapter.knownNodes().children(path, children);
            } else if (code == Code.NONODE) {
                adapter.knownNodes().absent(path);
            }
            if (code == Code.NONODE && watch) {
                // No children watch can be set on a missing node: watch for its creation instead.
                s.zk.exists(path, true, (rc2, p2, ctx2, stat) -> { }, null);
            }
            answered(code, () -> then.accept(children == null ? List.of() : children));
        }), null);
    }

    void data(String path, boolean watch, DataThen then) {
        pending++;
        s.zk.getData(path, watch, (rc, p, ctx, data, stat) -> adapter.post(s, () -> {
            Code code = Code.get(rc);
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
        }), null);
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
