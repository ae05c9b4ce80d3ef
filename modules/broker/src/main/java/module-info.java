/**
 * The broker: the composition root that owns one event-loop thread running the coordinator state machine and
 * executing its effects against ZooKeeper and Netty, plus configuration, graceful shutdown, and its metrics in the
 * Prometheus text format over the JDK's HTTP server ({@code GET /metrics} when {@code metrics.port} is set).
 */
module shepherd.broker {
    requires transitive shepherd.coordination;
    requires shepherd.zookeeper;
    requires shepherd.transport;
    requires org.slf4j;
    requires io.micrometer.prometheus.bundle;
    requires jdk.httpserver;

    exports shepherd.broker;
    // Exported to everyone: a test build's provider lives on the class path, in the unnamed module.
    exports shepherd.broker.spi;

    // Fault-injection test builds only; no provider ships in the runtime image (test.fencing, docs/broker.md).
    uses shepherd.broker.spi.TestSupport;
}
