/**
 * The groups a coordinator holds, and everything per group: membership (Register, OffsetCommit, Leave, pings,
 * removal), the rebalance (trigger and barrier), the fenced write pipeline and what waits on it ({@link
 * shepherd.coordination.group.AfterWrite}), and the read-only descriptions. {@link shepherd.coordination.group.Core}
 * is what every part of the coordinator shares within one step. Not exported: only the coordinator uses it.
 */
package shepherd.coordination.group;
