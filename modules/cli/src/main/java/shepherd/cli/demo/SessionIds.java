package shepherd.cli.demo;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Finds a broker's ZooKeeper session from outside: the broker does not expose it, but its ephemeral registration
 * node {@code /brokers/ids/[id]} names its owner session ({@code ephemeralOwner}).
 */
final class SessionIds {
    private static final int TIMEOUT_MS = 10_000;

    private SessionIds() {}

    /** The session owning the ephemeral node at {@code path} (0: not ephemeral, or absent). */
    static long ephemeralOwner(String connectString, String path) throws IOException, InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        Watcher watcher = (WatchedEvent e) -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        };
        ZooKeeper zk = new ZooKeeper(connectString, TIMEOUT_MS, watcher);
        try {
            if (!connected.await(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                throw new IOException("no ZooKeeper connection to " + connectString + " within " + TIMEOUT_MS + " ms");
            }
            Stat stat = zk.exists(path, false);
            return stat == null ? 0 : stat.getEphemeralOwner();
        } catch (KeeperException e) {
            throw new IOException("cannot read " + path + ": " + e, e);
        } finally {
            zk.close();
        }
    }
}
