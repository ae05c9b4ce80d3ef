package shepherd.chaos.cluster;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ZkNodeConfigTest {
    private static final ZkNodeConfig.QuorumAddresses SELF = addresses(2001, 3001);

    @Test
    void aMemberSeesItselfAtItsRealPortsAndItsPeersWhereItDialsThem() {
        ZkNodeConfig config = new ZkNodeConfig(1, Path.of("data"), 1999, SELF,
                Map.of(2, addresses(4012, 5012), 3, addresses(4013, 5013)));
        String text = config.render();
        assertTrue(text.contains("\nserver.1=127.0.0.1:2001:3001\n"), text);
        assertTrue(text.contains("\nserver.2=127.0.0.1:4012:5012\n"), text);
        assertTrue(text.contains("\nserver.3=127.0.0.1:4013:5013\n"), text);
        assertTrue(text.contains("\nclientPort=1999\n"), text);
        assertTrue(text.contains("\nreconfigEnabled=false\n"), text);
        assertTrue(text.contains("\nautopurge.purgeInterval=0\n"), text);
    }

    @Test
    void aMemberCannotBeItsOwnPeer() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ZkNodeConfig(1, Path.of("data"), 1999, SELF, Map.of(1, SELF)));
        assertTrue(e.getMessage().contains("member 1"), e.getMessage());
    }

    private static ZkNodeConfig.QuorumAddresses addresses(int quorum, int election) {
        return new ZkNodeConfig.QuorumAddresses(new InetSocketAddress("127.0.0.1", quorum),
                new InetSocketAddress("127.0.0.1", election));
    }
}
