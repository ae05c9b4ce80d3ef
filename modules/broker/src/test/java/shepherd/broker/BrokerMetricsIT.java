package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A real broker on a real (embedded) ZooKeeper with {@code metrics.port=0}, scraped over HTTP with the JDK's
 * client while a real consumer joins, dies, and a peer sends garbage: every meter is exported, and each counts
 * what happened.
 */
class BrokerMetricsIT extends ClusterTestSupport {
    private static final String TOPIC = "events";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Broker startWithMetrics(int brokerId, int metricsPort) throws IOException {
        Broker b = Broker.start(cluster.config(brokerId).withOverrides(Map.of(
                BrokerConfig.METRICS_PORT, Integer.toString(metricsPort),
                BrokerConfig.METRICS_HOST, "127.0.0.1")));
        cluster.brokers.add(b);
        return b;
    }

    private HttpResponse<String> get(Broker b, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + b.metricsPort() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private String scrape(Broker b) {
        try {
            HttpResponse<String> r = get(b, "/metrics");
            assertEquals(200, r.statusCode(), r.body());
            assertEquals("text/plain; version=0.0.4; charset=utf-8", r.headers().firstValue("Content-Type")
                    .orElseThrow());
            return r.body();
        } catch (Exception e) {
            throw new AssertionError("scrape of broker " + b.brokerId() + " failed", e);
        }
    }

    private double value(Broker b, String name, Map<String, String> labels) {
        return Scrape.value(scrape(b), name, labels);
    }

    @Test
    void aRebalanceAFailedConsumerAndGarbageShowInTheScrape() throws Exception {
        cluster.setPartitions(TOPIC, 1, 2);
        Broker b = startWithMetrics(1, 0);
        assertTrue(b.metricsPort() > 0, "metricsPort " + b.metricsPort());
        cluster.awaitSingleCoordinator(10_000);

        TestConsumer c1 = cluster.consumer("g", "c1", TOPIC);
        cluster.awaitRangeAssignment(TOPIC, List.of("1-0", "1-1"), List.of(c1), 10_000);
        Cluster.await(5_000, "a stable rebalance counted",
                () -> value(b, "shepherd_rebalances_total", Map.of("outcome", "stable")) >= 1);

        String s = scrape(b);
        for (String name : List.of("shepherd_rebalances_total", "shepherd_rebalance_duration_seconds_bucket",
                "shepherd_groups", "shepherd_members", "shepherd_ping_misses_total",
                "shepherd_consumers_failed_total", "shepherd_coordinator_epoch", "shepherd_coordinating",
                "shepherd_zookeeper_session_events_total", "shepherd_zookeeper_op_latency_seconds_bucket",
                "shepherd_transport_malformed_frames_total")) {
            assertTrue(s.contains("\n" + name + "{"), name + " missing from\n" + s);
        }
        assertTrue(Scrape.value(s, "shepherd_rebalance_duration_seconds_count", Map.of()) >= 1, s);
        assertEquals(b.status().epoch(), Scrape.value(s, "shepherd_coordinator_epoch", Map.of("broker", "1")));
        assertTrue(b.status().epoch() > 0);
        assertEquals(1, Scrape.value(s, "shepherd_coordinating", Map.of()));
        assertEquals(1, Scrape.value(s, "shepherd_groups", Map.of()));
        assertEquals(1, Scrape.value(s, "shepherd_members", Map.of()));
        assertTrue(Scrape.value(s, "shepherd_zookeeper_op_latency_seconds_count", Map.of("op", "election")) >= 1, s);
        assertTrue(Scrape.value(s, "shepherd_zookeeper_op_latency_seconds_count", Map.of("op", "write")) >= 1, s);
        assertEquals(0, Scrape.value(s, "shepherd_consumers_failed_total", Map.of()));
        assertEquals(0, Scrape.value(s, "shepherd_transport_malformed_frames_total", Map.of()));

        c1.die(); // stops answering pings: every retry is missed, then it is declared failed
        Cluster.await(10_000, "c1 counted as failed",
                () -> value(b, "shepherd_consumers_failed_total", Map.of()) >= 1);
        s = scrape(b);
        assertTrue(Scrape.value(s, "shepherd_ping_misses_total", Map.of()) >= Cluster.PING_RETRIES + 1, s);
        Cluster.await(5_000, "the failed member gone from the gauge",
                () -> value(b, "shepherd_members", Map.of()) == 0);

        try (Socket raw = new Socket(InetAddress.getLoopbackAddress(), b.port());
             OutputStream out = raw.getOutputStream()) {
            out.write(ByteBuffer.allocate(4 + 9).putInt(-1).array()); // a negative frame size, and a header
            out.flush();
            Cluster.await(5_000, "the garbage counted",
                    () -> value(b, "shepherd_transport_malformed_frames_total", Map.of()) == 1);
        }
    }

    @Test
    void onlyGetMetricsIsServedAndTheServerStopsWithTheBroker() throws Exception {
        Broker b = startWithMetrics(1, 0);
        int port = b.metricsPort();
        for (String path : List.of("/", "/metrics/", "/metricsx", "/favicon.ico", "/api/metrics")) {
            assertEquals(404, get(b, path).statusCode(), path);
        }
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/metrics")).POST(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
        assertEquals(200, get(b, "/metrics?name=x").statusCode(), "a query string is still /metrics");

        b.shutdown();
        assertThrows(ConnectException.class, () -> http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()));
    }

    @Test
    void withoutMetricsPortThereIsNoServer() throws Exception {
        Broker b = cluster.startBroker(1);
        assertEquals(-1, b.metricsPort());
    }

    @Test
    void aMetricsPortInUseFailsStartNamingTheKeyAndTheTransportPortIsReleased() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            BrokerConfig config = cluster.config(1).withOverrides(Map.of(BrokerConfig.METRICS_PORT,
                    Integer.toString(port), BrokerConfig.METRICS_HOST, "127.0.0.1"));
            IOException e = assertThrows(IOException.class, () -> cluster.brokers.add(Broker.start(config)));
            assertTrue(e.getMessage().contains("metrics.port=" + port), e.getMessage());
        }
        // Nothing was left half-started: the same id starts and registers at once.
        Broker b = startWithMetrics(1, 0);
        cluster.awaitSingleCoordinator(10_000);
        assertTrue(b.metricsPort() > 0);
    }
}
