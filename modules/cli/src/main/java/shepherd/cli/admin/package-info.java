/**
 * The administration side of the ZooKeeper tree: {@link shepherd.cli.admin.ZkAdmin}, the one ZooKeeper handle of
 * the {@code shepherd topics} / {@code offsets} / {@code produce} commands and of {@code LocalCluster}, and
 * {@link shepherd.cli.admin.Names}, the id rules the coordinator applies. Not exported: only the command line uses it.
 */
package shepherd.cli.admin;
