package shepherd.zookeeper;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent;
import shepherd.coordination.GroupSnapshot;
import shepherd.coordination.ZkOp;
import shepherd.coordination.ZkRead;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;

/**
 * A standby's rehearsal of the ZooKeeper side of a takeover, on the adapter's thread, that changes nothing
 * ({@link ZooKeeperAdapter#rehearseTakeover}):
 * <ol>
 *   <li>the topics and the first groups read as loading reads them, answers discarded, no watch armed: once in
 *       read-only multis (how unwatched nodes are read) and once one request per node (how watched ones are);</li>
 *   <li>a fenced write shaped like a takeover's first owners write, by a writer of its own, whose epoch check can
 *       never pass: it expects version {@value #NO_VERSION} of the epoch node, and ZooKeeper takes only −1 as "any
 *       version" and never gives a node a negative one. A multi is atomic, so the refusal of its first op means none
 *       of it was applied; its other ops name a group no real group can be ({@value #GROUP}: ids have no ':').</li>
 * </ol>
 * A trace of takeovers showed that the first run of these paths in a standby's JVM (the classes loaded, the lambdas
 * linked, the code compiled while the cores were busiest) was a good part of a graceful handover.
 */
final class TakeoverRehearsal {
    /** The group the rehearsed write names: ':' is not allowed in ids, so no real group has this name. */
    static final String GROUP = "warm-up:rehearsal";
    /** The epoch-node version the rehearsed write expects: never a node's version, and not −1 ("any"). */
    static final int NO_VERSION = -2;
    private static final long WRITE_ID = -1;
    private static final Logger LOG = LoggerFactory.getLogger(TakeoverRehearsal.class);

    private final ZooKeeperAdapter adapter;
    private final ZkSession s;
    private final int groupsMax;
    private final CompletableFuture<ZooKeeperAdapter.Rehearsal> done;
    private int groupsRead;
    private GroupSnapshot firstGroup;

    TakeoverRehearsal(ZooKeeperAdapter adapter, ZkSession s, int groupsMax,
                      CompletableFuture<ZooKeeperAdapter.Rehearsal> done) {
        this.adapter = adapter;
        this.s = s;
        this.groupsMax = Math.max(0, groupsMax);
        this.done = done;
    }

    void start() {
        read(false, () -> read(true, this::write));
    }

    /** Step 1, once: the topics, the group list and the first groups; {@code then} once every read answered. */
    private void read(boolean oneByOne, Runnable then) {
        int[] outstanding = {2};
        TreeReader[] reader = new TreeReader[1];
        reader[0] = new TreeReader(adapter, answer -> {
            if (answer instanceof CoordinatorEvent.GroupsRead read) {
                List<String> chosen = read.groups().stream().limit(groupsMax).toList();
                outstanding[0] += chosen.size();
                groupsRead = chosen.size();
                chosen.forEach(group -> reader[0].read(s, new ZkRead.Group(group)));
            } else if (answer instanceof CoordinatorEvent.GroupRead group && firstGroup == null) {
                firstGroup = group.snapshot();
            }
            if (--outstanding[0] == 0) {
                then.run();
            }
        }, false, oneByOne);
        reader[0].read(s, new ZkRead.Topics());
        reader[0].read(s, new ZkRead.Groups());
    }

    /** Step 2: the write that is always refused, reported to nobody but this rehearsal. */
    private void write() {
        FencedWriter writer = new FencedWriter(adapter, outcome -> {
            boolean refused = outcome instanceof CoordinatorEvent.ZkWriteFenced;
            if (outcome instanceof CoordinatorEvent.ZkWriteDone) {
                // Cannot happen (see the class comment); said loudly should ZooKeeper ever change its rules.
                LOG.error("the warm-up's write, fenced by an epoch version that never exists, was applied under {}",
                        ZkPaths.group(GROUP));
            } else if (!refused) {
                LOG.info("the warm-up's write was not answered as expected (no harm done): {}", outcome);
            }
            done.complete(new ZooKeeperAdapter.Rehearsal(groupsRead, refused));
        });
        writer.write(s, new CoordinatorEffect.Write(WRITE_ID, NO_VERSION, true, ops(firstGroup)));
    }

    /** The first owners write of a takeover of {@code group} (or of a one-partition group if there is none). */
    static List<ZkOp> ops(GroupSnapshot group) {
        Map<TopicPartition, StreamId> owners = group == null || group.owners().isEmpty()
                ? Map.of(TopicPartition.of("warm-up", "1-0"), new StreamId("c1", 0)) : group.owners();
        int generation = group == null ? 1 : group.generation() + 1;
        List<ZkOp> ops = new ArrayList<>();
        ops.add(new ZkOp.PutGroup(GROUP, generation, group == null ? "range" : group.assignor()));
        owners.forEach((tp, owner) -> {
            ops.add(new ZkOp.PutOwner(GROUP, tp, owner, generation));
            ops.add(new ZkOp.PutOffset(GROUP, tp, 0, owner.consumerId()));
        });
        return ops;
    }
}
