package shepherd.chaos.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

/** Plain ZooKeeper clients for the cluster tests: connected before use, operations retried across fail-overs. */
public final class ZkClients {
    static final int SESSION_TIMEOUT_MS = 4_000;
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

    private ZkClients() {}

    /** An operation that may meet a connection loss while the ensemble fails over. */
    @FunctionalInterface
    interface Op<T> {
        T run() throws KeeperException, InterruptedException;
    }

    /** A client whose session is established. */
    public static ZooKeeper connect(String connectString) throws IOException, InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, SESSION_TIMEOUT_MS, event -> {
            if (event.getState() == KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(CONNECT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            zk.close();
            throw new IllegalStateException("no ZooKeeper session to " + connectString + " within "
                    + CONNECT_TIMEOUT.toSeconds() + " s");
        }
        return zk;
    }

    /**
     * Runs {@code op} until it succeeds, retrying connection losses (the client reconnects by itself) until
     * {@code timeout}. Any other failure is the answer and propagates.
     */
    static <T> T retrying(Duration timeout, Op<T> op) throws KeeperException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return op.run();
            } catch (KeeperException.ConnectionLossException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                Thread.sleep(Await.POLL_INTERVAL.toMillis()); // between attempts; the client is reconnecting
            }
        }
    }

    static void closeQuietly(ZooKeeper zk) {
        if (zk == null) {
            return;
        }
        try {
            zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
