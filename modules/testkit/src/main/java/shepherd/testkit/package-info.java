/**
 * Manual clock, simulated ZooKeeper and network, invariant checker.
 */
package shepherd.testkit;
