package shepherd.broker;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.Response;
import shepherd.transport.Connection;
import shepherd.transport.TransportClient;
import shepherd.transport.TransportConfig;

/**
 * The warm-up of a broker's request path: Consults sent to the broker itself over a connection of its own, through
 * the same listening socket, frame decoder, event loop, core and response path as a consumer's. A Consult changes
 * nothing, in any role. Traced in a graceful handover, a just-restarted standby took 50–100 ms to accept its first
 * consumer connections and read their first frames, and up to 10 ms per answer, because no request had ever crossed
 * its JVM's network code.
 */
final class SelfConsult {
    private SelfConsult() {}

    /**
     * Sends {@code consults} Consults, one after another, to the broker listening on {@code listenHost:port};
     * returns how many were answered without error before the first failure or {@code timeoutMs} per step.
     */
    static int run(String listenHost, int port, int consults, long timeoutMs) {
        TransportClient client = TransportClient.create(TransportConfig.defaults().withIoThreads(1));
        try {
            Connection connection = client.connect(new InetSocketAddress(reachable(listenHost), port),
                    (c, correlationId, request) -> { }).get(timeoutMs, TimeUnit.MILLISECONDS);
            int answered = 0;
            for (int i = 0; i < consults; i++) {
                Response answer = connection.request(new ConsultRequest(), timeoutMs)
                        .get(timeoutMs, TimeUnit.MILLISECONDS);
                if (answer.errorCode() != ErrorCode.NONE) {
                    break;
                }
                answered++;
            }
            connection.close();
            return answered;
        } catch (ExecutionException | TimeoutException | UnknownHostException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } finally {
            client.close();
        }
    }

    /** The address to reach a server bound to {@code listenHost} from this machine: loopback for a wildcard bind. */
    private static InetAddress reachable(String listenHost) throws UnknownHostException {
        InetAddress bound = InetAddress.getByName(listenHost);
        return bound.isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : bound;
    }
}
