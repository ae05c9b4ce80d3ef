package shepherd.zookeeper;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * Proves that the bundled {@code org.apache.zookeeper} module works on the module path: a real embedded server, a
 * real client session, an ephemeral node that is ours by {@code ephemeralOwner} and vanishes with the session.
 */
class EmbeddedZooKeeperIT {

    @Test
    void clientSessionOwnsItsEphemeralNodeUntilItCloses() throws Exception {
        try (EmbeddedZooKeeper server = EmbeddedZooKeeper.startTemporary()) {
            assertEquals("org.apache.zookeeper", ZooKeeper.class.getModule().getName());

            ZooKeeper owner = connect(server.connectString());
            byte[] data = "broker-1".getBytes(StandardCharsets.UTF_8);
            owner.create("/election", data, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);

            ZooKeeper observer = connect(server.connectString());
            Stat stat = new Stat();
            assertArrayEquals(data, observer.getData("/election", false, stat));
            assertEquals(owner.getSessionId(), stat.getEphemeralOwner());

            owner.close();
            assertNull(observer.exists("/election", false), "the ephemeral node outlived its session");
            observer.close();
        }
    }

    @Test
    void temporaryDirectoryIsRemovedOnClose() {
        EmbeddedZooKeeper server = EmbeddedZooKeeper.startTemporary();
        assertTrue(server.baseDir().toFile().isDirectory());
        server.close();
        assertTrue(!server.baseDir().toFile().exists(), "left behind: " + server.baseDir());
    }

    private static ZooKeeper connect(String connectString) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, 4_000, event -> {
            if (event.getState() == KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertTrue(connected.await(20, TimeUnit.SECONDS), "no session with " + connectString);
        return zk;
    }
}
