package shepherd.chaos.cluster;

import eu.rekawek.toxiproxy.Proxy;
import eu.rekawek.toxiproxy.ToxiproxyClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Toxiproxy proxies that carry every quorum and election connection between ensemble members: for each ordered
 * pair (from, to), {@code <prefix>zk-q-<from>-<to>} and {@code <prefix>zk-e-<from>-<to>}, listening on a port
 * Toxiproxy picks and forwarding to {@code to}'s real ports. Member {@code from} dials {@code to} only through these,
 * so disabling them cuts the link both ways at once (Toxiproxy also closes the connections it carries).
 *
 * <p>A link is up iff neither end is isolated: healing one member does not reconnect it to another isolated one.
 */
final class QuorumLinks {
    /** Which of a member's two peer ports a proxy serves. */
    enum Kind {
        QUORUM("q"), ELECTION("e");

        final String code;

        Kind(String code) {
            this.code = code;
        }
    }

    private record Link(int from, int to, Kind kind) {}

    private final ToxiproxyClient client;
    private final Map<Link, Proxy> proxies = new LinkedHashMap<>();
    private final Set<Integer> isolated = new HashSet<>();

    private QuorumLinks(ToxiproxyClient client) {
        this.client = client;
    }

    /**
     * Creates the proxies between every two of {@code targets}' members ({@code id → real addresses}). A proxy of
     * the same name left by a killed run is deleted first.
     */
    static QuorumLinks create(ToxiproxyClient client, String namePrefix,
                              Map<Integer, ZkNodeConfig.QuorumAddresses> targets) throws IOException {
        QuorumLinks links = new QuorumLinks(client);
        try {
            for (int from : targets.keySet()) {
                for (int to : targets.keySet()) {
                    if (from == to) {
                        continue;
                    }
                    ZkNodeConfig.QuorumAddresses target = targets.get(to);
                    links.add(namePrefix, new Link(from, to, Kind.QUORUM), target.quorum());
                    links.add(namePrefix, new Link(from, to, Kind.ELECTION), target.election());
                }
            }
        } catch (IOException | RuntimeException e) {
            links.deleteAll();
            throw e;
        }
        return links;
    }

    private void add(String prefix, Link link, InetSocketAddress upstream) throws IOException {
        String name = prefix + "zk-" + link.kind().code + "-" + link.from() + "-" + link.to();
        Proxy leftover = client.getProxyOrNull(name);
        if (leftover != null) {
            leftover.delete();
        }
        // Port 0: Toxiproxy binds a free port and keeps it across disable/enable.
        Proxy proxy = client.createProxy(name, "127.0.0.1:0", upstream.getHostString() + ":" + upstream.getPort());
        proxies.put(link, proxy);
    }

    /** Where member {@code from} dials member {@code to}. */
    ZkNodeConfig.QuorumAddresses dialAddresses(int from, int to) {
        return new ZkNodeConfig.QuorumAddresses(listen(new Link(from, to, Kind.QUORUM)),
                listen(new Link(from, to, Kind.ELECTION)));
    }

    private InetSocketAddress listen(Link link) {
        Proxy proxy = proxies.get(link);
        if (proxy == null) {
            throw new IllegalArgumentException("no proxy for " + link + "; members are " + members());
        }
        String listen = proxy.getListen();
        int colon = listen.lastIndexOf(':');
        return new InetSocketAddress(listen.substring(0, colon), Integer.parseInt(listen.substring(colon + 1)));
    }

    /** Cuts every link from and to {@code id}. */
    synchronized void isolate(int id) throws IOException {
        requireMember(id);
        isolated.add(id);
        apply();
    }

    /** Restores {@code id}'s links to every member that is not isolated itself. */
    synchronized void heal(int id) throws IOException {
        requireMember(id);
        isolated.remove(id);
        apply();
    }

    synchronized void healAll() throws IOException {
        isolated.clear();
        apply();
    }

    synchronized boolean isIsolated(int id) {
        return isolated.contains(id);
    }

    /** Best effort: every proxy is tried even if some fail; the first failure is rethrown. */
    synchronized void deleteAll() {
        RuntimeException first = null;
        for (Proxy proxy : proxies.values()) {
            try {
                proxy.delete();
            } catch (IOException | RuntimeException e) {
                if (first == null) {
                    first = new IllegalStateException("cannot delete proxy " + proxy.getName(), e);
                }
            }
        }
        proxies.clear();
        if (first != null) {
            throw first;
        }
    }

    private void apply() throws IOException {
        for (Map.Entry<Link, Proxy> e : proxies.entrySet()) {
            boolean wanted = !isolated.contains(e.getKey().from()) && !isolated.contains(e.getKey().to());
            // Both calls are idempotent on the server; the client's cached flag is not trusted.
            if (wanted) {
                e.getValue().enable();
            } else {
                e.getValue().disable();
            }
        }
    }

    private void requireMember(int id) {
        if (!members().contains(id)) {
            throw new IllegalArgumentException("no ensemble member " + id + "; members are " + members());
        }
    }

    private List<Integer> members() {
        Set<Integer> ids = new HashSet<>();
        proxies.keySet().forEach(l -> ids.add(l.from()));
        List<Integer> sorted = new ArrayList<>(ids);
        sorted.sort(null);
        return sorted;
    }
}
