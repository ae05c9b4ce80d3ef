/**
 * Test support shared by the unit tests and the simulation: a manual clock, a simulated ZooKeeper and network, and
 * the {@code InvariantChecker} of DESIGN §7. Its simulated brokers run the real ZooKeeper adapter over the simulated
 * ZooKeeper ({@code SimZkClient}), so it requires the adapter's module, whose client interface its API implements.
 */
module shepherd.testkit {
    requires transitive shepherd.coordination;
    requires transitive shepherd.consumer;
    requires transitive shepherd.zookeeper;

    exports shepherd.testkit;
}
