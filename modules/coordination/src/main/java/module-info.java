/**
 * The sans-I/O coordination core: the coordinator state machine as a pure function
 * {@code (state, event, nowMs) -> (state, effects)}, and the partition assignors.
 *
 * <p>It knows nothing of threads, clocks, sockets, Netty, ZooKeeper or logging frameworks; the broker, the
 * simulation and the tests run it. The build enforces this: the module may require {@code shepherd.protocol} and
 * nothing else (DESIGN §2).
 *
 * <p>Assignors are a service: the module {@code uses} {@link shepherd.coordination.assign.Assignor}, finds the
 * installed ones by name through {@link shepherd.coordination.assign.Assignors}, and provides the three built-in
 * ones itself (docs/assignors.md).
 */
module shepherd.coordination {
    requires transitive shepherd.protocol;

    exports shepherd.coordination;
    exports shepherd.coordination.assign;
    // Negative-control switches: the simulation puts seed defects back to prove its checkers catch them, and the
    // broker does under test.fencing=disabled, which only a fault-injection test build may set.
    exports shepherd.coordination.defect to shepherd.testkit, shepherd.simulation, shepherd.broker;

    uses shepherd.coordination.assign.Assignor;

    provides shepherd.coordination.assign.Assignor with
            shepherd.coordination.assign.RangeAssignor,
            shepherd.coordination.assign.RoundRobinAssignor,
            shepherd.coordination.assign.StickyAssignor;
}
