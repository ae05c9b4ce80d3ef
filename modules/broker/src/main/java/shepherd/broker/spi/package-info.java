/**
 * Service interfaces the broker looks up but never provides: hooks for fault-injection test builds, absent from
 * the runtime image (docs/broker.md, {@code test.fencing}).
 */
package shepherd.broker.spi;
