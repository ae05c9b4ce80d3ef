package shepherd.coordination.defect;

/**
 * Switches that put one of the seed's defects back into the coordinator, for negative controls only: the
 * simulation must find the violation each one causes, which proves its checkers are not vacuous (CONVENTIONS 13).
 * Exported to the test kit, the simulation and the broker. A broker uses {@link #NO_FENCING} and
 * {@link #NO_LEASE_WAIT} only under {@code test.fencing=disabled}, which it refuses unless a fault-injection test
 * build put a {@code TestSupport} provider on its path (the chaos suite's negative control, docs/broker.md).
 */
public enum Defect {
    /**
     * D2/D5: writes without {@code check(/consumers/epoch)}, and commands without a provably live session. An
     * election may then hand out an epoch already held (the broker's adapter does not bump it).
     */
    NO_FENCING,
    /** D4: hand out partitions right after election, without waiting out the previous epoch's leases. */
    NO_LEASE_WAIT,
    /** D1: the seed's {@code compareAndSet(false, true)}: a trigger during a run is dropped. */
    DROP_TRIGGERS
}
