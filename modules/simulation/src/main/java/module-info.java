/**
 * The deterministic, seeded simulation of many brokers and consumers with injected faults, in a safety mode and a
 * liveness (healing) mode, checking the invariants of DESIGN §7 after every event.
 */
module shepherd.simulation {
    requires shepherd.testkit;

    exports shepherd.simulation;
}
