package shepherd.chaos.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import shepherd.chaos.ToxiproxyServer;

/**
 * The chaos suite's ZooKeeper ensemble does what the nemeses rely on: three real member processes form a quorum
 * that serves; killing the leader makes the others elect a new one; a member cut from the quorum by Toxiproxy stops
 * serving while the other two carry on, and rejoins when healed. One ensemble serves every test; each test leaves
 * it whole again.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ZkEnsembleIT {
    private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(60);

    private static ToxiproxyServer toxiproxy;
    private static ZkEnsemble ensemble;

    @BeforeAll
    static void startEnsemble() throws IOException, InterruptedException {
        toxiproxy = ToxiproxyServer.start();
        Path dir = Files.createDirectories(Path.of("target", "chaos-runs", "ZkEnsembleIT-" + System.nanoTime()));
        ensemble = ZkEnsemble.start(dir, toxiproxy.client(), "ensemble-it-");
    }

    @AfterAll
    static void stopEnsemble() {
        try {
            if (ensemble != null) {
                ensemble.close();
            }
        } finally {
            if (toxiproxy != null) {
                toxiproxy.close();
            }
        }
    }

    /** Every test starts from three serving members. */
    @AfterEach
    void makeWhole() {
        ensemble.healAll();
        for (int id = 1; id <= ensemble.size(); id++) {
            if (!ensemble.isAlive(id)) {
                ensemble.restart(id);
            }
        }
        ensemble.awaitQuorum(RECOVERY_TIMEOUT);
    }

    @Test
    void everyMemberServesAndAZnodeCanBeWrittenAndRead() throws Exception {
        for (int id = 1; id <= ensemble.size(); id++) {
            assertTrue(ensemble.mode(id).inQuorum(), () -> "a member does not serve:\n" + ensemble.describe());
        }
        assertTrue(ensemble.leader().isPresent(), () -> "no leader:\n" + ensemble.describe());
        ZooKeeper zk = ZkClients.connect(ensemble.connectString());
        try {
            zk.create("/serves", "hello".getBytes(UTF_8), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertArrayEquals("hello".getBytes(UTF_8), zk.getData("/serves", false, null));
        } finally {
            ZkClients.closeQuietly(zk);
        }
    }

    @Test
    void killingTheLeaderElectsAnotherAndWritesStillCommit() throws Exception {
        int leader = ensemble.leader().orElseThrow(() -> new AssertionError("no leader:\n" + ensemble.describe()));
        ensemble.kill(leader);
        ensemble.awaitQuorum(RECOVERY_TIMEOUT);

        int next = ensemble.leader().orElseThrow(() -> new AssertionError("no new leader:\n" + ensemble.describe()));
        assertNotEquals(leader, next, "the killed member still leads");
        ZooKeeper zk = ZkClients.connect(ensemble.connectString());
        try {
            ZkClients.retrying(RECOVERY_TIMEOUT, () -> zk.create("/after-leader-" + leader + "-died", new byte[0],
                    Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL));
        } finally {
            ZkClients.closeQuietly(zk);
        }
    }

    @Test
    void anIsolatedFollowerStopsServingTheOthersCarryOnAndItRejoinsWhenHealed() throws Exception {
        int leader = ensemble.leader().orElseThrow(() -> new AssertionError("no leader:\n" + ensemble.describe()));
        int follower = leader % ensemble.size() + 1;
        ensemble.isolate(follower);

        Await.until("member " + follower + " to stop serving once isolated", RECOVERY_TIMEOUT,
                () -> ensemble.mode(follower).inQuorum() ? "it is still " + ensemble.mode(follower) : null,
                ensemble::describe);
        ensemble.awaitQuorum(RECOVERY_TIMEOUT); // the other two
        String othersOnly = othersConnectString(follower);
        ZooKeeper zk = ZkClients.connect(othersOnly);
        try {
            ZkClients.retrying(RECOVERY_TIMEOUT, () -> zk.create("/while-" + follower + "-isolated",
                    "written".getBytes(UTF_8), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        } finally {
            ZkClients.closeQuietly(zk);
        }

        ensemble.heal(follower);
        ensemble.awaitQuorum(RECOVERY_TIMEOUT);
        ZooKeeper onlyHealed = ZkClients.connect(address(follower));
        try {
            ZkClients.retrying(RECOVERY_TIMEOUT, () -> {
                onlyHealed.sync("/", (rc, path, ctx) -> { }, null);
                return null;
            });
            // Synced with the leader, the healed member has what the others wrote while it was cut off.
            assertArrayEquals("written".getBytes(UTF_8), ZkClients.retrying(RECOVERY_TIMEOUT,
                    () -> onlyHealed.getData("/while-" + follower + "-isolated", false, null)));
        } finally {
            ZkClients.closeQuietly(onlyHealed);
        }
    }

    @Test
    void anIsolatedLeaderIsReplacedAndFollowsWhenHealed() throws Exception {
        int leader = ensemble.leader().orElseThrow(() -> new AssertionError("no leader:\n" + ensemble.describe()));
        ensemble.isolate(leader);

        // The cut-off leader may still say "leader" for up to syncLimit; the new one has a newer zxid epoch.
        Await.until("a leader other than the isolated member " + leader, RECOVERY_TIMEOUT,
                () -> ensemble.leader().orElse(leader) == leader ? "leader is " + ensemble.leader() : null,
                ensemble::describe);
        ensemble.awaitQuorum(RECOVERY_TIMEOUT);

        ensemble.heal(leader);
        ensemble.awaitQuorum(RECOVERY_TIMEOUT);
        assertEquals(ServerStatus.Mode.FOLLOWER, ensemble.mode(leader), ensemble::describe);
    }

    private static String othersConnectString(int excluded) {
        StringBuilder out = new StringBuilder();
        for (int id = 1; id <= ensemble.size(); id++) {
            if (id != excluded) {
                out.append(out.length() == 0 ? "" : ",").append(address(id));
            }
        }
        return out.toString();
    }

    private static String address(int id) {
        return "127.0.0.1:" + ensemble.clientAddress(id).getPort();
    }

}
