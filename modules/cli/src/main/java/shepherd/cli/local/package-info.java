/**
 * {@link shepherd.cli.local.LocalCluster}: brokers, a ZooKeeper and an admin handle in one JVM, for the consumer
 * library's integration tests and {@code shepherd demo}. Not exported: the tests are patched into {@code shepherd.cli}
 * and the demo lives in it.
 */
package shepherd.cli.local;
