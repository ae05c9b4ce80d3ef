/**
 * Test support shared by the unit tests and the simulation: a manual clock, a simulated ZooKeeper and network, and
 * the {@code InvariantChecker} of DESIGN §7.
 */
module shepherd.testkit {
    requires transitive shepherd.coordination;
    requires transitive shepherd.consumer;

    exports shepherd.testkit;
}
