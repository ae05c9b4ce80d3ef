package shepherd.zookeeper;

import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs.Ids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.coordination.CoordinatorEvent;
import shepherd.zookeeper.ZnodeCodec.EpochValue;

/**
 * The election of DESIGN §5 on the real client: one multi that creates the ephemeral {@code /consumers/coordinator}
 * and bumps {@code /consumers/epoch} conditionally on the version read just before, so winning and taking the new
 * epoch (the new data version) are one atomic step. NodeExists → an {@code exists} watch and LeaderObserved;
 * a lost reply → the node is ours iff its ephemeral owner is our current session. Runs on the adapter's thread.
 *
 * <p>Without {@link ZooKeeperAdapter.Config#epochBump} (the chaos suite's negative control) the multi is the create
 * alone and the winner takes the version it read as its epoch: the seed's unfenced coordinator, whose successor
 * cannot be told apart from it by epoch. The epoch node then keeps naming whoever last bumped it, so followers take
 * the coordinator's id from the election node instead.
 */
final class Election {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperAdapter.class);

    private final ZooKeeperAdapter adapter;
    private boolean wantElection;
    private boolean coordinator;
    /** Resigned for good: report the next coordinator once (watchNextLeader). */
    private boolean observeNext;
    /**
     * The last epoch this session won, {@link #NONE} before it won any. Kept through a resign: the session that
     * bumped the epoch may still write under it, and its writes are refused by ZooKeeper's check once another has won.
     */
    private int epochHeld = NONE;
    private static final int NONE = -2;

    Election(ZooKeeperAdapter adapter) {
        this.adapter = adapter;
    }

    /** RunForElection: want the role until won, resigned or the session ends. */
    void run(ZkSession s) {
        wantElection = true;
        coordinator = false;
        runForElection(s);
    }

    /** A new session: whatever we held or wanted ended with the old one (the core runs again after ZkExpired). */
    void reset() {
        wantElection = false;
        coordinator = false;
        observeNext = false;
        epochHeld = NONE;
    }

    /** Whether {@code epoch} is the last one the current session won. */
    boolean holds(int epoch) {
        return epochHeld == epoch; // NONE is no epoch: a write's epoch is at least 0
    }

    /** The watched election node changed (deleted, or created): try again if we still want it. */
    void leaderNodeChanged(ZkSession s) {
        if (wantElection && !coordinator) {
            runForElection(s);
        } else if (observeNext) {
            watchNextLeader(s);
        }
    }

    /**
     * After resigning for good (a handover): who wins next, reported as LeaderObserved, so that our last Consult
     * answers name it and the core can let its members go as soon as they can find it.
     */
    private void watchNextLeader(ZkSession s) {
        s.zk.exists(ZkPaths.COORDINATOR, true, (rc, path, ctx, stat) -> adapter.answered(s, rc, () -> {
            if (!observeNext || Code.get(rc) != Code.OK || stat.getEphemeralOwner() == s.id()) {
                return; // no node yet (or still ours, being deleted): the watch fires when that changes
            }
            observeNext = false;
            Runnable again = () -> {
                observeNext = true;
                adapter.retryLater(s, () -> {
                    if (observeNext) {
                        watchNextLeader(s);
                    }
                });
            };
            observe(s, again);
        }));
    }

    private void runForElection(ZkSession s) {
        s.zk.getData(ZkPaths.EPOCH, false, (rc, path, ctx, data, stat) -> adapter.answered(s, rc, () -> {
            if (!wantElection || coordinator) {
                return;
            }
            if (Code.get(rc) != Code.OK) {
                retryElectionLater(s);
                return;
            }
            int version = stat.getVersion();
            boolean handover = adapter.decodeOrSkip(path, stat, () -> ZnodeCodec.decodeEpoch(path, data))
                    .map(EpochValue::handover).orElse(false);
            long sentAtMs = adapter.now();
            Op create = Op.create(ZkPaths.COORDINATOR, ZnodeCodec.encodeCoordinator(adapter.config().brokerId()),
                    Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            List<Op> ops = !adapter.config().epochBump() ? List.of(create) : List.of(create,
                    Op.setData(ZkPaths.EPOCH,
                            ZnodeCodec.encodeEpoch(new EpochValue(adapter.config().brokerId(), false)), version));
            s.zk.multi(ops, (rc2, p, ctx2, results) -> adapter.answered(s, rc2,
                    () -> onElectionResult(s, Code.get(rc2), version, handover, sentAtMs)));
        }));
    }

    private void onElectionResult(ZkSession s, Code code, int version, boolean handover, long sentAtMs) {
        if (!wantElection || coordinator) {
            return;
        }
        switch (code) {
            // The multi committed: the epoch is the version our setData produced (unbumped: the one we read).
            case OK -> won(adapter.config().epochBump() ? version + 1 : version, handover, sentAtMs);
            // Someone else holds the node: watch it, retry when it goes.
            case NODEEXISTS -> watchLeader(s, handover);
            // Another broker won and bumped the epoch between our read and our multi: read again.
            case BADVERSION -> runForElection(s);
            // The reply was lost: the multi may have committed.
            case CONNECTIONLOSS -> resolveLostElection(s, handover);
            default -> retryElectionLater(s);
        }
    }

    private void won(int epoch, boolean handover, long sentAtMs) {
        wantElection = false;
        coordinator = true;
        epochHeld = epoch;
        // Earlier epochs — another coordinator's among them — may have changed the groups since this session last
        // looked: plan the new epoch's writes from its own reads, not from what an earlier epoch saw.
        adapter.knownNodes().clear();
        LOG.info("broker {} won the election, epoch {}{}", adapter.config().brokerId(), epoch,
                handover ? " (previous epoch handed over cleanly)" : "");
        adapter.emit(new CoordinatorEvent.ElectionWon(epoch, handover, sentAtMs));
    }

    /** The election node is ours iff its ephemeral owner is our current session (DESIGN §5). */
    private void resolveLostElection(ZkSession s, boolean handover) {
        long sentAtMs = adapter.now();
        s.zk.exists(ZkPaths.COORDINATOR, false, (rc, path, ctx, node) -> adapter.answered(s, rc, () -> {
            Code code = Code.get(rc);
            if (!wantElection || coordinator) {
                return;
            }
            if (code == Code.OK && node.getEphemeralOwner() == s.id()) {
                s.zk.exists(ZkPaths.EPOCH, false, (rc2, p2, ctx2, epoch) -> adapter.answered(s, rc2, () -> {
                    if (Code.get(rc2) == Code.OK) {
                        if (wantElection && !coordinator) {
                            won(epoch.getVersion(), handover, sentAtMs);
                        }
                    } else {
                        adapter.retryLater(s, () -> resolveLostElection(s, handover));
                    }
                }));
            } else if (code == Code.OK || code == Code.NONODE) {
                runForElection(s);
            } else {
                adapter.retryLater(s, () -> resolveLostElection(s, handover));
            }
        }));
    }

    private void watchLeader(ZkSession s, boolean handover) {
        s.zk.exists(ZkPaths.COORDINATOR, true, (rc, path, ctx, stat) -> adapter.answered(s, rc, () -> {
            if (!wantElection || coordinator) {
                return;
            }
            Code code = Code.get(rc);
            if (code == Code.NONODE) {
                runForElection(s);
            } else if (code == Code.OK && stat.getEphemeralOwner() == s.id()) {
                // Our own node: an earlier attempt of ours committed though its reply never reached us.
                resolveLostElection(s, handover);
            } else if (code == Code.OK) {
                removeIfStale(s, stat);
                observe(s, () -> retryElectionLater(s));
            } else {
                retryElectionLater(s);
            }
        }));
    }

    /** Reports who holds the election node as LeaderObserved; {@code again} if a read of it is lost. */
    private void observe(ZkSession s, Runnable again) {
        if (adapter.config().epochBump()) {
            observeLeader(s, again);
        } else {
            observeUnbumpedLeader(s, again);
        }
    }

    /**
     * The epoch node names the broker whose win produced its version: that is the coordinator. A read that fails
     * (the connection lost, the session not) runs {@code again} after the retry delay: nothing else would, for the
     * election node's watch fires only when the coordinator changes, and until then this broker's Consult answers
     * would name the previous one to every consumer (the simulation's seeds 3302 and 1001636).
     */
    private void observeLeader(ZkSession s, Runnable again) {
        s.zk.getData(ZkPaths.EPOCH, false, (rc, path, ctx, data, epochStat) -> adapter.answered(s, rc, () -> {
            Code code = Code.get(rc);
            if (code == Code.OK) {
                adapter.decodeOrSkip(path, epochStat, () -> ZnodeCodec.decodeEpoch(path, data))
                        .ifPresent(e -> adapter.emit(
                                new CoordinatorEvent.LeaderObserved(e.brokerId(), epochStat.getVersion())));
            } else {
                again.run();
            }
        }));
    }

    /** Without the bump the epoch node may name a deposed broker: the election node names the holder. */
    private void observeUnbumpedLeader(ZkSession s, Runnable again) {
        s.zk.getData(ZkPaths.COORDINATOR, false, (rc, path, ctx, data, nodeStat) -> adapter.answered(s, rc, () -> {
            Code code = Code.get(rc);
            if (code == Code.NONODE) {
                return; // gone already: its deletion fires the watch and we run again
            }
            if (code != Code.OK) {
                again.run();
                return;
            }
            adapter.decodeOrSkip(path, nodeStat, () -> ZnodeCodec.decodeCoordinator(path, data)).ifPresent(id ->
                    s.zk.exists(ZkPaths.EPOCH, false, (rc2, p2, ctx2, epochStat) -> adapter.answered(s, rc2, () -> {
                        Code code2 = Code.get(rc2);
                        if (code2 == Code.OK) {
                            adapter.emit(new CoordinatorEvent.LeaderObserved(id, epochStat.getVersion()));
                        } else {
                            again.run();
                        }
                    })));
        }));
    }

    /**
     * An election node with our broker id under another session was left by an earlier session of this broker (a
     * restart before the old session expired; ids are unique among live brokers, which the registry enforces). Its
     * holder is gone, and waiting for ZooKeeper to expire it would leave the cluster without a coordinator for a
     * session timeout: delete it, conditionally on the version we saw, and run again. Whatever the old session
     * might still write is fenced by the epoch the next win bumps.
     */
    private void removeIfStale(ZkSession s, org.apache.zookeeper.data.Stat seen) {
        s.zk.getData(ZkPaths.COORDINATOR, false, (rc, path, ctx, data, stat) -> adapter.answered(s, rc, () -> {
            if (Code.get(rc) != Code.OK || stat.getCzxid() != seen.getCzxid() || !wantElection || coordinator) {
                return;
            }
            boolean ours;
            try {
                ours = ZnodeCodec.decodeCoordinator(path, data) == adapter.config().brokerId();
            } catch (ZnodeFormatException e) {
                return; // garbage in the node: not provably ours; its session's expiry will remove it
            }
            if (ours) {
                LOG.info("broker {}: deleting the election node left by our earlier session 0x{}",
                        adapter.config().brokerId(), Long.toHexString(stat.getEphemeralOwner()));
                s.zk.delete(ZkPaths.COORDINATOR, stat.getVersion(),
                        (rc2, p2, ctx2) -> adapter.answered(s, rc2, () -> { }));
            }
        }));
    }

    private void retryElectionLater(ZkSession s) {
        adapter.retryLater(s, () -> {
            if (wantElection && !coordinator) {
                runForElection(s);
            }
        });
    }

    void resign(ZkSession s, boolean rejoin) {
        wantElection = false;
        coordinator = false;
        observeNext = !rejoin;
        s.zk.exists(ZkPaths.COORDINATOR, false, (rc, path, ctx, node) -> adapter.answered(s, rc, () -> {
            if (Code.get(rc) == Code.OK && node.getEphemeralOwner() == s.id()) {
                s.zk.delete(ZkPaths.COORDINATOR, node.getVersion(),
                        (rc2, p2, ctx2) -> adapter.answered(s, rc2, () -> { }));
            }
            if (rejoin) {
                wantElection = true;
                runForElection(s);
            } else if (observeNext) {
                watchNextLeader(s); // behind the delete: this session sees the node gone, or the next one's
            }
        }));
    }
}
