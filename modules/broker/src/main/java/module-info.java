/**
 * The broker: the composition root that owns one event-loop thread running the coordinator state machine and
 * executing its effects against ZooKeeper and Netty, plus configuration and graceful shutdown.
 */
module shepherd.broker {
    requires transitive shepherd.coordination;
    requires shepherd.zookeeper;
    requires shepherd.transport;
    requires org.slf4j;

    exports shepherd.broker;
}
