package shepherd.chaos.cluster;

import eu.rekawek.toxiproxy.ToxiproxyClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import shepherd.chaos.LoopbackPorts;

/**
 * A real three-member ZooKeeper ensemble for the chaos suite (DESIGN §8): each member its own JVM running
 * {@code QuorumPeerMain}, every quorum and election connection between members through a Toxiproxy proxy so that a
 * member can be cut from the others while its clients can still reach it.
 *
 * <p><b>Addresses.</b> Member N's {@code zoo.cfg} lists itself at its real quorum and election ports and every
 * other member M at the listen addresses of the proxies {@code <prefix>zk-q-N-M} and {@code <prefix>zk-e-N-M}, whose
 * upstreams are M's real ports (see {@link ZkNodeConfig}). So the members' views of the ensemble differ, which
 * ZooKeeper accepts: an address in the configuration is only where to dial; a member binds its own entry and learns
 * who called from the connection's first message; and with {@code reconfigEnabled=false} no member adopts another's
 * view. Client ports are not proxied: {@link #clientAddress} is the real one, and whoever wants to cut a client from
 * a member puts its own proxy in front of it.
 *
 * <p><b>Settings</b>: tickTime 200 ms, initLimit 10, syncLimit 5 ticks, sessions up to
 * {@value ZkNodeConfig#MAX_SESSION_TIMEOUT_MS} ms, four-letter words {@value ZkNodeConfig#FOUR_LETTER_WORDS}, no
 * admin server, no autopurge (the transaction logs are the run's record, read by {@link ZkTxnHistory}), no fsync
 * (a SIGKILLed JVM's writes stay in the page cache).
 *
 * <p><b>Files</b> under the run directory: {@code zk-<id>/zoo.cfg}, {@code zk-<id>/data} (the member's dataDir:
 * {@code myid}, {@code version-2/log.*} and snapshots) and {@code zk-<id>/server.log} (stdout and stderr of every
 * incarnation, appended).
 *
 * <p><b>For callers:</b> ids are 1..{@link #size()}. {@link #kill} and {@link #restart} return once the process is
 * gone or launched; neither waits for a quorum: call {@link #awaitQuorum}. {@link #isolate} takes effect at once
 * (Toxiproxy closes the connections it carries); the isolated member notices within syncLimit (1 s) and stops
 * serving, and if it led, the other two elect a new leader. Every method is unchecked: I/O failures surface as
 * {@link UncheckedIOException}, an interrupt as {@link IllegalStateException} with the interrupt flag set. Not
 * thread-safe across methods that change the ensemble; queries may run concurrently with them.
 */
public final class ZkEnsemble implements AutoCloseable {
    public static final int SIZE = 3;
    /** Generous: three JVMs start and elect on two cores shared with other builds. */
    public static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    static final Duration SRVR_TIMEOUT = Duration.ofSeconds(2);

    /** One member: where clients reach it, where it keeps its data, its process. */
    private record Member(int id, InetSocketAddress client, Path dataDir, ZkProcess process) {}

    private final Map<Integer, Member> members;
    private final QuorumLinks links;
    /** Kills the members if the test JVM exits without {@link #close()}: no orphaned servers on a shared machine. */
    private final Thread shutdownHook;

    private ZkEnsemble(Map<Integer, Member> members, QuorumLinks links) {
        this.members = members;
        this.links = links;
        this.shutdownHook = new Thread(() -> members.values().forEach(m -> m.process().killNow()),
                "zk-ensemble-killer");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Writes the members' configurations under {@code dir}, creates their quorum proxies (named with
     * {@code namePrefix}, which must be unique among the proxies of {@code toxiproxy}), starts the three JVMs and
     * waits up to {@link #START_TIMEOUT} until every member serves as leader or follower.
     *
     * @throws IllegalStateException if no quorum forms in time, with each member's state and log tail
     */
    public static ZkEnsemble start(Path dir, ToxiproxyClient toxiproxy, String namePrefix) {
        ZkEnsemble ensemble = launch(dir, toxiproxy, namePrefix);
        try {
            ensemble.awaitQuorum(START_TIMEOUT);
        } catch (RuntimeException e) {
            ensemble.close();
            throw e;
        }
        return ensemble;
    }

    private static ZkEnsemble launch(Path dir, ToxiproxyClient toxiproxy, String namePrefix) {
        Map<Integer, ZkNodeConfig.QuorumAddresses> real = new LinkedHashMap<>();
        Map<Integer, Integer> clientPorts = new LinkedHashMap<>();
        QuorumLinks links;
        // The ports stay bound while Toxiproxy picks its own, so it cannot pick one of ours.
        List<ServerSocket> reserved = reservePorts(3 * SIZE);
        try {
            for (int id = 1; id <= SIZE; id++) {
                int base = 3 * (id - 1);
                clientPorts.put(id, reserved.get(base).getLocalPort());
                real.put(id, new ZkNodeConfig.QuorumAddresses(
                        loopback(reserved.get(base + 1).getLocalPort()),
                        loopback(reserved.get(base + 2).getLocalPort())));
            }
            links = QuorumLinks.create(toxiproxy, namePrefix, real);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the quorum proxies of " + namePrefix + "zk-*", e);
        } finally {
            reserved.forEach(ZkEnsemble::closeQuietly);
        }
        Map<Integer, Member> members = new LinkedHashMap<>();
        try {
            for (int id = 1; id <= SIZE; id++) {
                members.put(id, prepare(dir, id, clientPorts.get(id), real.get(id), links));
            }
        } catch (RuntimeException e) {
            links.deleteAll();
            throw e;
        }
        ZkEnsemble ensemble = new ZkEnsemble(members, links);
        try {
            members.values().forEach(m -> m.process().start());
        } catch (RuntimeException e) {
            ensemble.close();
            throw e;
        }
        return ensemble;
    }

    private static Member prepare(Path dir, int id, int clientPort, ZkNodeConfig.QuorumAddresses self,
                                  QuorumLinks links) {
        Path home = dir.resolve("zk-" + id);
        Path dataDir = home.resolve("data");
        Map<Integer, ZkNodeConfig.QuorumAddresses> peers = new LinkedHashMap<>();
        for (int peer = 1; peer <= SIZE; peer++) {
            if (peer != id) {
                peers.put(peer, links.dialAddresses(id, peer));
            }
        }
        ZkNodeConfig config = new ZkNodeConfig(id, dataDir, clientPort, self, peers);
        Path configFile = home.resolve("zoo.cfg");
        try {
            Files.createDirectories(dataDir);
            Files.writeString(dataDir.resolve("myid"), Integer.toString(id), StandardCharsets.US_ASCII);
            Files.writeString(configFile, config.render(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare ZooKeeper member " + id + " in " + home, e);
        }
        return new Member(id, loopback(clientPort), dataDir,
                new ZkProcess(id, configFile, home.resolve("server.log")));
    }

    /** {@value #SIZE}. */
    public int size() {
        return members.size();
    }

    /** Member {@code id}'s real client address on 127.0.0.1 (not proxied). */
    public InetSocketAddress clientAddress(int id) {
        return member(id).client();
    }

    /** Every member's real client address, {@code 127.0.0.1:p1,127.0.0.1:p2,...}: for the test's own clients. */
    public String connectString() {
        return members.values().stream()
                .map(m -> m.client().getHostString() + ":" + m.client().getPort())
                .collect(Collectors.joining(","));
    }

    /** Member {@code id}'s dataDir (holds {@code version-2/log.*}). */
    public Path dataDir(int id) {
        return member(id).dataDir();
    }

    /** Every member's dataDir, by id: what {@link ZkTxnHistory#read} takes. */
    public List<Path> dataDirs() {
        return members.values().stream().map(Member::dataDir).toList();
    }

    /** Member {@code id}'s log file (stdout and stderr of every incarnation). */
    public Path log(int id) {
        return member(id).process().log();
    }

    public boolean isAlive(int id) {
        return member(id).process().isAlive();
    }

    public boolean isIsolated(int id) {
        member(id);
        return links.isIsolated(id);
    }

    /**
     * The member that leads, by asking every live one with {@code srvr}; empty while none does. If two members
     * both still say "leader" (an isolated leader has not yet noticed), the one whose last zxid has the newer epoch
     * is the real one.
     */
    public OptionalInt leader() {
        int leader = -1;
        long epoch = -1;
        for (Member m : members.values()) {
            if (!m.process().isAlive()) {
                continue;
            }
            ServerStatus status = status(m.id());
            if (status.mode() == ServerStatus.Mode.LEADER && status.zxidEpoch() > epoch) {
                leader = m.id();
                epoch = status.zxidEpoch();
            }
        }
        return leader < 0 ? OptionalInt.empty() : OptionalInt.of(leader);
    }

    /** What member {@code id} answers to {@code srvr} now. */
    public ServerStatus.Mode mode(int id) {
        return status(id).mode();
    }

    ServerStatus status(int id) {
        return ServerStatus.query(member(id).client(), SRVR_TIMEOUT);
    }

    /** SIGKILL (no goodbye to the quorum), and waits until the process is gone. */
    public void kill(int id) {
        try {
            member(id).process().kill();
        } catch (InterruptedException e) {
            throw interrupted("killing member " + id, e);
        }
    }

    /** Starts member {@code id} again with the same configuration, ports and data; does not wait for it to serve. */
    public void restart(int id) {
        member(id).process().start();
    }

    /** Cuts member {@code id}'s quorum and election links to and from every other member. */
    public void isolate(int id) {
        try {
            links.isolate(id);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot isolate member " + id, e);
        }
    }

    /** Restores member {@code id}'s links to every member that is not isolated. */
    public void heal(int id) {
        try {
            links.heal(id);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot heal member " + id, e);
        }
    }

    /** Restores every quorum link. */
    public void healAll() {
        try {
            links.healAll();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot heal the quorum links", e);
        }
    }

    /**
     * Waits until every live, non-isolated member serves as leader or follower, with exactly one leader among them
     * and at least a majority of the ensemble serving.
     *
     * @throws IllegalStateException after {@code timeout}, with every member's state and log tail
     */
    public void awaitQuorum(Duration timeout) {
        try {
            Await.until("a quorum of ZooKeeper members serving", timeout, this::quorumMissing, this::describe);
        } catch (InterruptedException e) {
            throw interrupted("awaiting a quorum", e);
        }
    }

    /** Null when a quorum serves, else what is missing. */
    private String quorumMissing() {
        List<String> missing = new ArrayList<>();
        int serving = 0;
        int leaders = 0;
        for (Member m : members.values()) {
            if (m.process().exitedOnItsOwn()) {
                throw new IllegalStateException("ZooKeeper member " + m.id() + " " + m.process().describe()
                        + " on its own\n" + describe());
            }
            if (!m.process().isAlive() || links.isIsolated(m.id())) {
                continue;
            }
            ServerStatus status = status(m.id());
            if (status.mode().inQuorum()) {
                serving++;
                leaders += status.mode() == ServerStatus.Mode.LEADER ? 1 : 0;
            } else {
                missing.add("member " + m.id() + " is " + status.mode());
            }
        }
        if (missing.isEmpty() && leaders == 1 && serving > size() / 2) {
            return null;
        }
        return "serving " + serving + ", leaders " + leaders + (missing.isEmpty() ? "" : ", " + missing);
    }

    /** Every member's process, links and {@code srvr} answer, and its log tail: for failure messages. */
    public String describe() {
        StringBuilder out = new StringBuilder();
        for (Member m : members.values()) {
            out.append("---- ZooKeeper member ").append(m.id()).append(": ").append(m.process().describe())
                    .append(links.isIsolated(m.id()) ? ", isolated" : "")
                    .append(", client ").append(m.client().getPort())
                    .append(", srvr ").append(m.process().isAlive() ? status(m.id()) : "-")
                    .append(", log ").append(m.process().log()).append('\n')
                    .append(m.process().logTail()).append('\n');
        }
        return out.toString();
    }

    /** Kills every member and deletes the proxies this ensemble created; the files stay for the report. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook is running or about to: it kills the members
        }
        RuntimeException first = null;
        for (Member m : members.values()) {
            try {
                m.process().kill();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                first = first != null ? first : new IllegalStateException("interrupted closing the ensemble", e);
            } catch (RuntimeException e) {
                first = first != null ? first : e;
            }
        }
        try {
            links.deleteAll();
        } catch (RuntimeException e) {
            first = first != null ? first : e;
        }
        if (first != null) {
            throw first;
        }
    }

    private Member member(int id) {
        Member m = members.get(id);
        if (m == null) {
            throw new IllegalArgumentException("no ZooKeeper member " + id + "; ids are 1.." + size());
        }
        return m;
    }

    private static IllegalStateException interrupted(String what, InterruptedException e) {
        Thread.currentThread().interrupt();
        return new IllegalStateException("interrupted " + what, e);
    }

    private static InetSocketAddress loopback(int port) {
        return new InetSocketAddress("127.0.0.1", port);
    }

    /** {@code count} distinct free loopback ports, still bound: the caller closes them when it wants them free. */
    private static List<ServerSocket> reservePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                sockets.add(LoopbackPorts.reserve());
            }
            return sockets;
        } catch (UncheckedIOException e) {
            sockets.forEach(ZkEnsemble::closeQuietly);
            throw new UncheckedIOException("cannot reserve " + count + " loopback ports", e.getCause());
        }
    }

    private static void closeQuietly(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // only a probe: the port is free either way
        }
    }
}
