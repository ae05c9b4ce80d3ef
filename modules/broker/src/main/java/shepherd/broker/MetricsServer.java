package shepherd.broker;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code GET /metrics} in the Prometheus text format with the JDK's HTTP server; every other path is 404,
 * any other method on {@code /metrics} is 405. One daemon thread answers, so a slow scraper cannot multiply the
 * work; a scrape is cheap (the meters are read, plus one snapshot from the event loop).
 */
final class MetricsServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);
    static final String PATH = "/metrics";
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService executor;
    private final Supplier<String> scrape;

    private MetricsServer(HttpServer server, ExecutorService executor, Supplier<String> scrape) {
        this.server = server;
        this.executor = executor;
        this.scrape = scrape;
    }

    /**
     * Binds {@code host:port} (0: a free port) and starts serving.
     *
     * @throws IOException naming {@code metrics.host} and {@code metrics.port} if the address cannot be bound
     */
    static MetricsServer start(String host, int port, Supplier<String> scrape, String threadName) throws IOException {
        Objects.requireNonNull(scrape, "scrape");
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 0);
        } catch (BindException e) {
            throw new IOException("cannot serve metrics on " + host + ":" + port + " (" + BrokerConfig.METRICS_HOST
                    + "=" + host + ", " + BrokerConfig.METRICS_PORT + "=" + port + "): " + e.getMessage()
                    + "; is another process using the port?", e);
        } catch (IOException | RuntimeException e) {
            throw new IOException("cannot serve metrics on " + host + ":" + port + " (" + BrokerConfig.METRICS_HOST
                    + "=" + host + ", " + BrokerConfig.METRICS_PORT + "=" + port + "): " + e, e);
        }
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        MetricsServer metrics = new MetricsServer(server, executor, scrape);
        server.createContext("/", metrics::handle);
        server.setExecutor(executor);
        server.start();
        LOG.info("metrics served on http://{}:{}{}", host, metrics.port(), PATH);
        return metrics;
    }

    /** The bound port (the real one when started with port 0). */
    int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            if (!PATH.equals(path)) {
                reply(exchange, 404, "text/plain; charset=utf-8", "not found: only GET " + PATH + " is served\n",
                        true);
            } else if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                reply(exchange, 405, "text/plain; charset=utf-8", "method not allowed: " + method + "\n", true);
            } else {
                String body;
                try {
                    body = scrape.get();
                } catch (RuntimeException e) {
                    LOG.warn("metrics scrape failed", e);
                    reply(exchange, 500, "text/plain; charset=utf-8", "scrape failed: " + e + "\n", true);
                    return;
                }
                reply(exchange, 200, CONTENT_TYPE, body, method.equals("GET"));
            }
        }
    }

    private static void reply(HttpExchange exchange, int status, String contentType, String body, boolean withBody)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, withBody ? bytes.length : -1);
        if (withBody) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** Stops at once (a scrape in flight is cut) and ends the thread. Idempotent. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
