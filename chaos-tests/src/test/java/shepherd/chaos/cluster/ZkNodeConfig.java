package shepherd.chaos.cluster;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The {@code zoo.cfg} of one ensemble member, as this node sees the ensemble: itself at its real quorum and
 * election ports, every other member at the addresses it must dial to reach it (in {@link ZkEnsemble}, the listen
 * addresses of Toxiproxy proxies). ZooKeeper uses another member's address only to connect to it; a member binds
 * its own entry and learns a caller's id from the connection's first message, so the members may disagree about
 * where everyone else is.
 *
 * @param id this member's id ({@code myid})
 * @param clientPort where clients connect, on 127.0.0.1
 * @param self this member's own quorum and election ports, bound on 127.0.0.1
 * @param peers every other member's id → where this member dials it
 */
record ZkNodeConfig(int id, Path dataDir, int clientPort, QuorumAddresses self, Map<Integer, QuorumAddresses> peers) {
    static final int TICK_MS = 200;
    static final int INIT_LIMIT_TICKS = 10;
    static final int SYNC_LIMIT_TICKS = 5;
    /** 40 ticks: room above the 2–4 s sessions of DESIGN §8 (ZooKeeper's default maximum is 20 ticks, 4 s). */
    static final int MAX_SESSION_TIMEOUT_MS = 40 * TICK_MS;
    /** The four-letter words the fixture and the checks use, and nothing else. */
    static final String FOUR_LETTER_WORDS = "srvr,stat,ruok,mntr";

    /** Where a member's quorum (follower ↔ leader) and election traffic goes. */
    record QuorumAddresses(InetSocketAddress quorum, InetSocketAddress election) {
        String render() {
            return quorum.getHostString() + ":" + quorum.getPort() + ":" + election.getPort();
        }
    }

    ZkNodeConfig {
        peers = Map.copyOf(peers);
        if (peers.containsKey(id)) {
            throw new IllegalArgumentException("member " + id + " lists itself among its peers: " + peers);
        }
        for (QuorumAddresses a : peers.values()) {
            if (!a.quorum().getHostString().equals(a.election().getHostString())) {
                throw new IllegalArgumentException("zoo.cfg wants one host for a member's quorum and election "
                        + "ports, not " + a);
            }
        }
    }

    /** The file's lines, in a stable order. */
    String render() {
        SortedMap<String, String> p = new TreeMap<>();
        p.put("tickTime", Integer.toString(TICK_MS));
        p.put("initLimit", Integer.toString(INIT_LIMIT_TICKS));
        p.put("syncLimit", Integer.toString(SYNC_LIMIT_TICKS));
        p.put("dataDir", dataDir.toAbsolutePath().toString());
        p.put("clientPort", Integer.toString(clientPort));
        p.put("clientPortAddress", "127.0.0.1");
        p.put("maxSessionTimeout", Integer.toString(MAX_SESSION_TIMEOUT_MS));
        p.put("4lw.commands.whitelist", FOUR_LETTER_WORDS);
        p.put("admin.enableServer", "false");
        // A static, fixed membership: nothing rewrites this file or adopts another member's view of the ensemble.
        p.put("reconfigEnabled", "false");
        p.put("standaloneEnabled", "false");
        // The transaction logs are the run's record of what committed (ZkTxnHistory): never purge them.
        p.put("autopurge.purgeInterval", "0");
        p.put("server." + id, self.render());
        peers.forEach((peer, where) -> p.put("server." + peer, where.render()));
        StringBuilder out = new StringBuilder("# ZooKeeper member ").append(id).append(" (written by ZkEnsemble)\n");
        p.forEach((k, v) -> out.append(k).append('=').append(v).append('\n'));
        return out.toString();
    }
}
