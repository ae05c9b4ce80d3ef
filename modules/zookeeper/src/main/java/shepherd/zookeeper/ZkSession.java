package shepherd.zookeeper;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * One ZooKeeper handle of the adapter, its default watcher, and the effects waiting for its first SyncConnected.
 * Everything the handle reports is re-posted to the adapter's thread tagged with this object, so that answers of a
 * handle that has since expired are recognised and dropped.
 */
final class ZkSession implements Watcher {
    private final ZooKeeperAdapter adapter;
    ZooKeeper zk;
    boolean established;
    boolean disconnected;
    long disconnectedAtMs;
    final List<Consumer<ZkSession>> waiting = new ArrayList<>();
    /** Reads whose batched answer lost the connection: read one request per node from then on (ReadJoin). */
    final Set<Object> readOneByOne = new HashSet<>();

    ZkSession(ZooKeeperAdapter adapter) {
        this.adapter = adapter;
    }

    long id() {
        return zk.getSessionId();
    }

    @Override
    public void process(WatchedEvent event) {
        adapter.post(this, () -> adapter.onZkEvent(this, event));
    }
}
