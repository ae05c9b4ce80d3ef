package shepherd.zookeeper;

import java.net.InetSocketAddress;
import java.util.Collection;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.HostProvider;
import org.apache.zookeeper.client.StaticHostProvider;

/**
 * The ZooKeeper client's list of servers, with a shorter pause once a session has connected.
 *
 * <p>After a connection is lost, the 3.9 client sleeps a random 0–1 s before each new attempt, and when it has tried
 * every server of the list without success it also sleeps the spin delay it passes here, a fixed 1 s. A
 * disconnect of a few hundred milliseconds that happens to refuse one attempt per server therefore costs up to
 * 2 s more before the next attempt, and with a short session (2 s in the chaos suite, and for any broker configured
 * so) the server expires a session that was cut for a fraction of its timeout: the coordinator resets and the
 * whole cluster re-elects, where a resume without a reset was due. Once this provider's session has connected, the
 * spin is capped at {@link #SPIN_AFTER_CONNECT_MS}; the random sleep before every attempt still paces the
 * retries. Before the first connection the client skips that random sleep (it has never primed a connection), so
 * there the spin is left as the client asks: a broker started while ZooKeeper is down retries three servers a
 * second, not a hundred.
 */
final class PromptReconnect implements HostProvider {
    /** The longest pause after a full round of refused servers, once the session has connected. */
    static final long SPIN_AFTER_CONNECT_MS = 50;

    private final HostProvider servers;
    private volatile boolean connected;

    PromptReconnect(HostProvider servers) {
        this.servers = servers;
    }

    /** The servers of {@code connectString} (its chroot, if any, is for the client, which parses it itself). */
    static PromptReconnect of(String connectString) {
        return new PromptReconnect(new StaticHostProvider(new ConnectStringParser(connectString).getServerAddresses()));
    }

    @Override
    public int size() {
        return servers.size();
    }

    @Override
    public InetSocketAddress next(long spinDelay) {
        return servers.next(connected ? Math.min(spinDelay, SPIN_AFTER_CONNECT_MS) : spinDelay);
    }

    @Override
    public void onConnected() {
        connected = true;
        servers.onConnected();
    }

    @Override
    public boolean updateServerList(Collection<InetSocketAddress> serverAddresses, InetSocketAddress currentHost) {
        return servers.updateServerList(serverAddresses, currentHost);
    }
}
