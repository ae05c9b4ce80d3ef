package shepherd.broker;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import shepherd.zookeeper.EmbeddedZooKeeper;

/**
 * What the broker integration tests share: one embedded ZooKeeper per test class, a fresh {@link Cluster} (its own
 * chroot) per test, both closed afterwards.
 */
abstract class ClusterTestSupport {
    static EmbeddedZooKeeper zk;
    Cluster cluster;

    @BeforeAll
    static void startZooKeeper() {
        zk = EmbeddedZooKeeper.startTemporary();
    }

    @AfterAll
    static void stopZooKeeper() {
        zk.close();
    }

    @BeforeEach
    void startCluster() throws Exception {
        cluster = new Cluster(zk);
    }

    @AfterEach
    void closeCluster() throws Exception {
        cluster.close();
    }
}
