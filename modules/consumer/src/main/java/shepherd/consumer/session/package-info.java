/**
 * The consumer session core: the consumer's side of the coordination protocol (DESIGN §3, §5, §6) as a sans-I/O
 * state machine {@code (state, event, nowMs) → (state, effects)}.
 *
 * <p>This package uses {@code java.base} and {@code shepherd.protocol} only: no transport, no logging, no threads,
 * no clocks, no randomness. The consumer runtime (network thread, fetchers, API) feeds it {@link
 * shepherd.consumer.session.SessionEvent}s with the time it read from its own monotonic clock and executes the
 * returned {@link shepherd.consumer.session.SessionEffect}s in order; the simulation in {@code shepherd.testkit}
 * drives the very same core with a manual clock. That is why it must stay pure: anything that read a clock or
 * blocked would make the simulation non-deterministic and the lease unprovable. See docs/consumer-session.md.
 */
package shepherd.consumer.session;
