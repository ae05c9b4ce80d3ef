package shepherd.chaos.cluster;

import eu.rekawek.toxiproxy.Proxy;
import eu.rekawek.toxiproxy.model.Toxic;
import eu.rekawek.toxiproxy.model.ToxicDirection;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One Toxiproxy proxy of a chaos run — a directed link such as "broker 2 → ZooKeeper node 3" — and the faults the
 * nemeses put on it. Upstream is the side the connection is made to (a ZooKeeper node, a broker); downstream data
 * flows back from it to the side that connected.
 */
public final class Link {
    private final Proxy proxy;
    private final String from;
    private final String to;

    Link(Proxy proxy, String from, String to) {
        this.proxy = proxy;
        this.from = from;
        this.to = to;
    }

    public String name() {
        return proxy.getName();
    }

    /** Host and port this link listens on (what the connecting side is configured with). */
    public String listen() {
        return proxy.getListen();
    }

    /** Refuses connections and resets the open ones: both sides see the link fail at once. */
    public void cut() {
        io(proxy::disable, "cut");
    }

    /**
     * A partition that says nothing: both directions drop every byte and connections hang open, so each side only
     * learns of it from its own timeouts (a ZooKeeper client after 2/3 of its session timeout).
     */
    public void blackhole() {
        oneWay(ToxicDirection.UPSTREAM);
        oneWay(ToxicDirection.DOWNSTREAM);
    }

    /** Drops every byte flowing in one direction; the other still flows (an asymmetric partition). */
    public void oneWay(ToxicDirection direction) {
        io(() -> proxy.toxics().timeout("drop-" + direction.name().toLowerCase(), direction, 0), "drop");
    }

    /** Delays every byte by {@code ms} in both directions (so a protocol phase lasts long enough to aim at). */
    public void latency(long ms) {
        io(() -> proxy.toxics().latency("latency-up", ToxicDirection.UPSTREAM, ms), "latency");
        io(() -> proxy.toxics().latency("latency-down", ToxicDirection.DOWNSTREAM, ms), "latency");
    }

    /** Resets connections (TCP RST) {@code afterMs} after data arrives: requests whose outcome is unknown. */
    public void resetPeer(long afterMs) {
        io(() -> proxy.toxics().resetPeer("reset-peer", ToxicDirection.UPSTREAM, afterMs), "reset_peer");
    }

    /** Closes a connection after {@code bytes} more bytes upstream: a request cut off mid-write. */
    public void limitData(long bytes) {
        io(() -> proxy.toxics().limitData("limit-data", ToxicDirection.UPSTREAM, bytes), "limit_data");
    }

    /**
     * Removes every toxic and re-enables the link. Connections that had bytes dropped are reset by bouncing the
     * proxy: a healed network carries new connections, never a stream with a hole in it.
     */
    public void heal() {
        io(() -> {
            boolean dropped = false;
            for (Toxic t : proxy.toxics().getAll()) {
                dropped |= t.getName().startsWith("drop-");
                t.remove();
            }
            if (dropped && proxy.isEnabled()) {
                proxy.disable();
            }
            proxy.enable();
        }, "heal");
    }

    @Override
    public String toString() {
        return from + "→" + to;
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private void io(IoAction action, String what) {
        try {
            action.run();
        } catch (IOException e) {
            throw new UncheckedIOException("Toxiproxy refused " + what + " on " + name() + " (" + this + ")", e);
        }
    }
}
