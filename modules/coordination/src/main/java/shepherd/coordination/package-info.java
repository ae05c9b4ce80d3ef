/**
 * The coordinator's API: {@link shepherd.coordination.Coordinator} and what goes in and out of it — events,
 * effects (typed by destination), ZooKeeper ops and reads, timers, configuration and read-only views. The parts
 * behind it are in {@code group}, {@code load} and {@code handover}, which the module does not export.
 */
package shepherd.coordination;
