/**
 * What the examples' integration tests share, built only from Shepherd's exported API: a real ZooKeeper server in
 * this JVM ({@code EmbeddedZooKeeper}), real brokers on loopback ({@code Broker.start}), topics written where
 * {@code shepherd topics create} writes them, records appended to the {@code file} source's logs, reads of the
 * offsets and owners the coordinator stored, and example applications started as JVMs of their own with exactly
 * the command their READMEs give.
 *
 * <p>Not an example itself, and not for production: one embedded ZooKeeper server is no quorum.
 */
module shepherd.examples.harness {
    requires shepherd.broker;
    requires shepherd.zookeeper;

    exports shepherd.examples.harness;
}
