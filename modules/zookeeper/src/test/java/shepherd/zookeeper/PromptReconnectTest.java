package shepherd.zookeeper;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.zookeeper.client.HostProvider;
import org.junit.jupiter.api.Test;

/** The spin after a full round of refused servers: the client's own until the session connects, short after. */
class PromptReconnectTest {

    /** Records the spin delays the wrapper passes on; answers a fixed address. */
    private static final class Recording implements HostProvider {
        final List<Long> spins = new ArrayList<>();
        int connects;

        @Override
        public int size() {
            return 3;
        }

        @Override
        public InetSocketAddress next(long spinDelay) {
            spins.add(spinDelay);
            return InetSocketAddress.createUnresolved("127.0.0.1", 2181);
        }

        @Override
        public void onConnected() {
            connects++;
        }

        @Override
        public boolean updateServerList(Collection<InetSocketAddress> serverAddresses, InetSocketAddress current) {
            return false;
        }
    }

    @Test
    void theClientsSpinStandsUntilTheFirstConnectionThenIsCapped() {
        Recording servers = new Recording();
        PromptReconnect provider = new PromptReconnect(servers);
        provider.next(1_000);
        provider.next(0);
        provider.onConnected();
        provider.next(1_000);
        provider.next(10);
        assertEquals(List.of(1_000L, 0L, PromptReconnect.SPIN_AFTER_CONNECT_MS, 10L), servers.spins);
        assertEquals(1, servers.connects, "the wrapped provider still learns which server it connected to");
    }

    @Test
    void theServersAndTheChrootOfAConnectString() {
        assertEquals(3, PromptReconnect.of("127.0.0.1:2181,127.0.0.1:2182,localhost:2183/shepherd").size());
    }
}
