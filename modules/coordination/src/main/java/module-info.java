/**
 * The sans-I/O coordination core: the coordinator and consumer-session state machines as pure functions
 * {@code (state, event, nowMs) -> (state, effects)}, and the partition assignors.
 *
 * <p>It knows nothing of threads, clocks, sockets, Netty, ZooKeeper or logging frameworks; the broker, the
 * simulation and the tests run it. The build enforces this: the module may require {@code shepherd.protocol} and
 * nothing else (DESIGN §2).
 */
module shepherd.coordination {
    requires transitive shepherd.protocol;

    // exports shepherd.coordination as soon as the package holds its first type (javac refuses an export of an empty package).
}
