package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

/** What the loop tells the core about where a connection comes from: the numeric address, never the port. */
class BrokerLoopPeerTest {

    @Test
    void anIpv4PeerIsItsDottedAddressWithoutThePort() throws UnknownHostException {
        InetAddress ip = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        assertEquals("127.0.0.1", BrokerLoop.peerHost(new InetSocketAddress(ip, 51234)));
    }

    @Test
    void anIpv6PeerIsItsAddressUnbracketed() throws UnknownHostException {
        InetAddress ip = InetAddress.getByAddress(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
        assertEquals("0:0:0:0:0:0:0:1", BrokerLoop.peerHost(new InetSocketAddress(ip, 51234)));
    }

    @Test
    void aNamedAddressIsNotLookedUp() throws UnknownHostException {
        // A resolved address that carries a name still reports the number (no reverse lookup on the loop).
        InetAddress named = InetAddress.getByAddress("consumer-7.example", new byte[] {10, 0, 0, 7});
        assertEquals("10.0.0.7", BrokerLoop.peerHost(new InetSocketAddress(named, 9092)));
        assertEquals("consumer-7.example",
                BrokerLoop.peerHost(InetSocketAddress.createUnresolved("consumer-7.example", 9092)));
    }

    @Test
    void aPeerWithoutAnIpAddressIsUnknown() {
        assertEquals("", BrokerLoop.peerHost(null));
        assertEquals("", BrokerLoop.peerHost(new SocketAddress() {}));
    }
}
