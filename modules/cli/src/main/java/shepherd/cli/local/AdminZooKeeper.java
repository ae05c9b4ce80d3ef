package shepherd.cli.local;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import shepherd.zookeeper.ZkPaths;

/**
 * The local cluster's own ZooKeeper handle, for what an operator's tools would do: create the chroot, write topics,
 * read owners and offsets. Brokers never share it.
 *
 * <p>The handle is reopened when its session has died (a long pause of the test JVM can expire it); the brokers'
 * sessions are theirs and are never touched here. Every failure becomes an {@link IllegalStateException} naming the
 * operation and the path: a helper for tests and the demo has no caller that could handle it better.
 */
final class AdminZooKeeper implements AutoCloseable {
    /** Requested session timeout of the admin handle; the server clamps it to its 2 – 20 ticks. */
    static final int SESSION_TIMEOUT_MS = 10_000;
    /** How long opening a handle waits for its first SyncConnected. */
    static final long CONNECT_TIMEOUT_MS = 15_000;
    /** How often a {@link #multi} that raced with another writer (NodeExists/NoNode) is planned again. */
    private static final int MULTI_ATTEMPTS_MAX = 3;

    private final String connectString;
    private ZooKeeper handle; // guarded by this
    private boolean closed; // guarded by this

    private AdminZooKeeper(String connectString, ZooKeeper handle) {
        this.connectString = connectString;
        this.handle = handle;
    }

    static AdminZooKeeper open(String connectString) {
        return new AdminZooKeeper(connectString, connect(connectString));
    }

    /**
     * Creates {@code chroot} and its ancestors through a handle on the server's root: ZooKeeper cannot create a
     * handle's own root through that handle (docs/zookeeper-layout.md).
     */
    static void createChroot(String hosts, String chroot) {
        if (chroot.equals("/")) {
            return;
        }
        ZooKeeper root = connect(hosts);
        try {
            createPath(root, chroot);
        } finally {
            closeQuietly(root);
        }
    }

    /** Creates {@code path} and every missing ancestor as empty persistent nodes; existing nodes are kept. */
    void createPath(String path) {
        createPath(handle(), path);
    }

    /**
     * Runs {@code plan} (which may read through this handle) and commits its ops as one {@code multi}; a plan that
     * raced with another writer (a node created or deleted in between) is made and tried again, a bounded number of
     * times.
     */
    void multi(String what, Supplier<List<Op>> plan) {
        for (int attempt = 1; ; attempt++) {
            try {
                handle().multi(plan.get());
                return;
            } catch (KeeperException.NodeExistsException | KeeperException.NoNodeException e) {
                if (attempt >= MULTI_ATTEMPTS_MAX) {
                    throw failed(what, e);
                }
            } catch (KeeperException e) {
                throw failed(what, e);
            } catch (InterruptedException e) {
                throw interrupted(what, e);
            }
        }
    }

    boolean exists(String path) {
        try {
            return handle().exists(path, false) != null;
        } catch (KeeperException e) {
            throw failed("exists(" + path + ")", e);
        } catch (InterruptedException e) {
            throw interrupted("exists(" + path + ")", e);
        }
    }

    /** The node's data, or empty if it does not exist (also if it was deleted while we read). */
    Optional<byte[]> data(String path) {
        try {
            return Optional.ofNullable(handle().getData(path, false, null));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (KeeperException e) {
            throw failed("getData(" + path + ")", e);
        } catch (InterruptedException e) {
            throw interrupted("getData(" + path + ")", e);
        }
    }

    /** The node's children, or none if it does not exist. */
    List<String> children(String path) {
        try {
            return handle().getChildren(path, false);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (KeeperException e) {
            throw failed("getChildren(" + path + ")", e);
        } catch (InterruptedException e) {
            throw interrupted("getChildren(" + path + ")", e);
        }
    }

    /** The live handle, reopened if its session was closed or expired. */
    private synchronized ZooKeeper handle() {
        if (closed) {
            throw new IllegalStateException("the admin ZooKeeper handle of " + connectString + " is closed");
        }
        if (!handle.getState().isAlive()) {
            closeQuietly(handle);
            handle = connect(connectString);
        }
        return handle;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeQuietly(handle);
    }

    private static void createPath(ZooKeeper zk, String path) {
        List<String> prefixes = new ArrayList<>();
        for (String p = path; !p.equals("/"); p = ZkPaths.parent(p)) {
            prefixes.add(0, p);
        }
        for (String p : prefixes) {
            try {
                zk.create(p, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } catch (KeeperException.NodeExistsException e) {
                // there already (a broker's adapter creates the fixed nodes at the start of its sessions)
            } catch (KeeperException e) {
                throw failed("create(" + p + ")", e);
            } catch (InterruptedException e) {
                throw interrupted("create(" + p + ")", e);
            }
        }
    }

    private static ZooKeeper connect(String connectString) {
        CountDownLatch up = new CountDownLatch(1);
        ZooKeeper zk;
        try {
            zk = new ZooKeeper(connectString, SESSION_TIMEOUT_MS, event -> {
                if (event.getState() == KeeperState.SyncConnected) {
                    up.countDown();
                }
            });
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a ZooKeeper handle on " + connectString + ": " + e, e);
        }
        try {
            if (!up.await(CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                closeQuietly(zk);
                throw new IllegalStateException("no ZooKeeper session with " + connectString + " within "
                        + CONNECT_TIMEOUT_MS + " ms");
            }
        } catch (InterruptedException e) {
            closeQuietly(zk);
            throw interrupted("connecting to " + connectString, e);
        }
        return zk;
    }

    private static void closeQuietly(ZooKeeper zk) {
        try {
            zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static IllegalStateException failed(String what, KeeperException e) {
        return new IllegalStateException(what + " failed: " + e.getMessage(), e);
    }

    private static IllegalStateException interrupted(String what, InterruptedException e) {
        Thread.currentThread().interrupt();
        return new IllegalStateException("interrupted during " + what, e);
    }
}
