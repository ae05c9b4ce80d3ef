/**
 * Example: a partition assignor written outside Shepherd and plugged into its brokers as a service. It
 * {@code provides} {@link shepherd.coordination.assign.Assignor} with {@link com.example.assignors.RendezvousAssignor}
 * ({@code rendezvous}); a broker with this module on its module path finds it through {@code ServiceLoader}, and a
 * group uses it once the broker's {@code group.assignor.overrides} (or {@code group.assignor.default}) names it.
 * See README.md and docs/assignors.md, "Plugging in an assignor".
 *
 * <p>It requires {@code shepherd.coordination} alone: an assignor is a pure function from the group's topics,
 * partitions and streams to owners, and must not do I/O, read a clock or keep state.
 */
module com.example.assignors {
    requires shepherd.coordination;

    provides shepherd.coordination.assign.Assignor with com.example.assignors.RendezvousAssignor;
}
