package shepherd.zookeeper;

import java.util.List;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;

/**
 * {@link ZkClient} on a real {@link ZooKeeper} handle: each call is the handle's own asynchronous call with the open
 * ACL and no context, nothing added, so the requests on the wire are the adapter's and no other.
 */
public final class ZooKeeperClient implements ZkClient {
    private final ZooKeeper zk;

    private ZooKeeperClient(ZooKeeper zk) {
        this.zk = zk;
    }

    /**
     * Sessions with the servers of {@code connectString} (and its chroot, if any), reconnecting promptly once
     * connected ({@link PromptReconnect}).
     */
    public static ZkClient.Factory factory(String connectString, int sessionTimeoutMs) {
        return watcher -> new ZooKeeperClient(new ZooKeeper(connectString, sessionTimeoutMs, watcher, false,
                PromptReconnect.of(connectString)));
    }

    /** The handle's session password: tests end the session on the server side with a second handle. */
    byte[] sessionPassword() {
        return zk.getSessionPasswd();
    }

    @Override
    public long sessionId() {
        return zk.getSessionId();
    }

    @Override
    public void create(String path, byte[] data, CreateMode mode, AsyncCallback.StringCallback cb) {
        zk.create(path, data, Ids.OPEN_ACL_UNSAFE, mode, cb, null);
    }

    @Override
    public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
        zk.delete(path, version, cb, null);
    }

    @Override
    public void exists(String path, boolean watch, AsyncCallback.StatCallback cb) {
        zk.exists(path, watch, cb, null);
    }

    @Override
    public void getData(String path, boolean watch, AsyncCallback.DataCallback cb) {
        zk.getData(path, watch, cb, null);
    }

    @Override
    public void getChildren(String path, boolean watch, AsyncCallback.ChildrenCallback cb) {
        zk.getChildren(path, watch, cb, null);
    }

    @Override
    public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
        zk.multi(ops, cb, null);
    }

    @Override
    public void close() throws InterruptedException {
        zk.close();
    }
}
