package shepherd.zookeeper;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * One ZooKeeper session of the adapter (its {@link ZkClient}), the client's default watcher, and the effects waiting
 * for its first SyncConnected. Everything the client reports is re-posted to the adapter's loop tagged with this
 * object, so that answers of a session that has since ended are recognised and dropped.
 */
final class ZkSession implements Watcher {
    private final ZooKeeperAdapter adapter;
    ZkClient zk;
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
        return zk.sessionId();
    }

    @Override
    public void process(WatchedEvent event) {
        adapter.post(this, () -> adapter.onZkEvent(this, event));
    }
}
