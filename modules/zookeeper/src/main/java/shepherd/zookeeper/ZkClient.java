package shepherd.zookeeper;

import java.io.IOException;
import java.util.List;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;

/**
 * The ZooKeeper calls the adapter makes, on one session: the asynchronous forms only, in ZooKeeper's own types, so
 * that the real client ({@link ZooKeeperClient}) passes every call straight through and a simulated one (the test
 * kit's, over its in-memory ZooKeeper) runs the same adapter code, election, writes and reads included.
 *
 * <p>What an implementation must keep of ZooKeeper's contract, because the adapter relies on it:
 * <ol>
 *   <li>requests of one session are applied in the order they were issued, and their callbacks, watch firings and
 *       session events are delivered in the order the server produced them, one at a time;</li>
 *   <li>every callback is called exactly once, with {@code CONNECTIONLOSS} when the outcome is unknown and
 *       {@code SESSIONEXPIRED} once the session is gone;</li>
 *   <li>a multi is atomic; a failed one reports, per op, {@code OK} before the op that failed, that op's code, and
 *       {@code RUNTIMEINCONSISTENCY} after it; a multi of reads only answers each read on its own;</li>
 *   <li>watches are one-shot, and set by a request only if the server answered it.</li>
 * </ol>
 * Every node is created with the open ACL, and the callbacks' context object is always {@code null}.
 */
public interface ZkClient {

    /** Opens a session whose session events and watch firings all go to {@code watcher}, in order. */
    @FunctionalInterface
    interface Factory {
        ZkClient open(Watcher watcher) throws IOException;
    }

    /** The session's id; 0 until the session is established. */
    long sessionId();

    void create(String path, byte[] data, CreateMode mode, AsyncCallback.StringCallback cb);

    void delete(String path, int version, AsyncCallback.VoidCallback cb);

    void exists(String path, boolean watch, AsyncCallback.StatCallback cb);

    void getData(String path, boolean watch, AsyncCallback.DataCallback cb);

    void getChildren(String path, boolean watch, AsyncCallback.ChildrenCallback cb);

    /** Writes only (check, create, setData, delete), or reads only (getData, getChildren): ZooKeeper mixes none. */
    void multi(List<Op> ops, AsyncCallback.MultiCallback cb);

    /** Ends the session: its ephemeral nodes go at once. */
    void close() throws InterruptedException;
}
