/**
 * The ZooKeeper adapter: coordinator election and the epoch, the broker registry, the metadata store of topics,
 * groups, registrations, owners and offsets (fenced multi writes), and watches turned into coordination events
 * delivered in order on one queue.
 */
module shepherd.zookeeper {
    requires transitive shepherd.coordination;
    requires transitive org.apache.zookeeper;
    requires org.slf4j;

    exports shepherd.zookeeper;
}
