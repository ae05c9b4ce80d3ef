package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** The warm-up's Consults to the broker itself, over a real socket to a real broker. */
class SelfConsultIT extends ClusterTestSupport {
    @Test
    void aBrokerAnswersTheConsultsItSendsItself() throws Exception {
        Broker b = cluster.startBroker(1);
        assertEquals(200, SelfConsult.run("127.0.0.1", b.port(), 200, 5_000));
        // A broker bound to every interface is reached over loopback.
        assertEquals(3, SelfConsult.run("0.0.0.0", b.port(), 3, 5_000));
    }

    @Test
    void nothingListeningMeansNoneAnsweredAndNoError() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        assertEquals(0, SelfConsult.run("127.0.0.1", closed, 3, 2_000));
    }
}
