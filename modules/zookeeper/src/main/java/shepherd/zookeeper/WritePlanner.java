package shepherd.zookeeper;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BinaryOperator;
import java.util.function.Predicate;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs.Ids;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.ZkOp;
import shepherd.zookeeper.ZnodeCodec.EpochValue;
import shepherd.zookeeper.ZnodeCodec.GroupValue;
import shepherd.zookeeper.ZnodeCodec.OwnerValue;

/**
 * Turns one {@link CoordinatorEffect.Write} into ZooKeeper {@code multi}s, pure and testable without a server.
 *
 * <p>ZooKeeper's multi has no "create or overwrite": a create of an existing node or a setData of a missing one
 * fails the whole multi. So the adapter first learns which of the touched paths exist ({@link #probes}, answered by
 * {@code exists} reads issued after every earlier multi of the session, hence seeing their effects — ZooKeeper
 * answers one session's requests in order), and the planner picks create or setData per node and creates missing
 * parents, tracking what the earlier ops of the same write create or delete.
 *
 * <p>A multi is one packet and ZooKeeper refuses packets over {@code jute.maxbuffer} (1 MiB by default), so the
 * ops are cut into several multis below {@code multiBytesMax}, each led by the same
 * {@code check(/consumers/epoch, epoch)}: every part is fenced on its own. A handover's {@code setData} of the
 * epoch node changes its version, so it goes last, in the last part.
 */
final class WritePlanner {
    /** Bytes a multi's op costs beyond its path and data (headers, ACL, flags): generous on purpose. */
    static final int OP_OVERHEAD_BYTES = 64;

    private WritePlanner() {}

    /**
     * The node each op writes, in op order ({@code null} for the handover: {@code /consumers/epoch} always exists).
     * Computed once per write and used both for {@link #probes} and {@link #plan}. Ops of one group and topic come
     * together (a member's partitions, a topic's offsets), so the owners or offsets prefix of the previous op is
     * reused while group and topic stay the same: a 64 × 1,024 owners write builds 1,024 paths, not 5,000 strings.
     */
    static List<String> targets(List<ZkOp> ops) {
        List<String> targets = new ArrayList<>(ops.size());
        Prefix owners = new Prefix(ZkPaths::ownersOfTopic);
        Prefix offsets = new Prefix(ZkPaths::offsetsOfTopic);
        for (ZkOp op : ops) {
            targets.add(target(op, owners, offsets));
        }
        return targets;
    }

    /**
     * Every path whose existence decides how the write's ops translate: the touched nodes and their ancestors. A
     * path already in the set had its ancestors added with it, so the walk up stops there: 1,024 owners of one
     * topic cost one parent each, not six. This runs on every write, known-nodes hint or not.
     *
     * @param targets the write's {@link #targets}
     */
    static Set<String> probes(List<String> targets) {
        Set<String> paths = new LinkedHashSet<>();
        for (String path : targets) {
            if (path == null) {
                continue;
            }
            for (String p = path; !p.equals("/") && paths.add(p); p = ZkPaths.parent(p)) {
                // added; its ancestors next, until one is already in
            }
        }
        return paths;
    }

    /**
     * The multis to issue, in order.
     *
     * @param targets       the write's {@link #targets}, one per op
     * @param exists        what the probes found (every path of {@link #probes} must be answered)
     * @param multiBytesMax the size at which a multi is cut; at least one op always goes into each part
     */
    static List<List<Op>> plan(CoordinatorEffect.Write write, List<String> targets, int brokerId,
            Predicate<String> exists, int multiBytesMax) {
        if (targets.size() != write.ops().size()) {
            throw new IllegalArgumentException("targets of " + targets.size() + " ops for a write of "
                    + write.ops().size() + " ops (writeId " + write.writeId() + ")");
        }
        Tree tree = new Tree(exists);
        List<Sized> ops = new ArrayList<>();
        List<Sized> last = new ArrayList<>();
        Map<OwnerValue, byte[]> owners = new HashMap<>();
        for (int i = 0; i < targets.size(); i++) {
            ZkOp op = write.ops().get(i);
            translate(op, targets.get(i), write.epoch(), brokerId, tree, owners,
                    op instanceof ZkOp.PutHandover ? last : ops);
        }
        ops.addAll(last);
        return split(write, ops, multiBytesMax);
    }

    private static List<List<Op>> split(CoordinatorEffect.Write write, List<Sized> ops, int multiBytesMax) {
        List<List<Op>> parts = new ArrayList<>();
        List<Op> part = newPart(write);
        int bytes = 0;
        for (Sized sized : ops) {
            int size = sized.bytes();
            if (bytes + size > multiBytesMax && part.size() > (write.fenced() ? 1 : 0)) {
                parts.add(part);
                part = newPart(write);
                bytes = 0;
            }
            part.add(sized.op());
            bytes += size;
        }
        if (part.size() > (write.fenced() ? 1 : 0) || parts.isEmpty()) {
            parts.add(part);
        }
        return parts;
    }

    private static List<Op> newPart(CoordinatorEffect.Write write) {
        List<Op> part = new ArrayList<>();
        if (write.fenced()) {
            part.add(Op.check(ZkPaths.EPOCH, write.epoch()));
        }
        return part;
    }

    /** An op with the bytes it adds to its multi's packet (ZooKeeper's {@code Op} does not expose its data). */
    record Sized(Op op, int bytes) {
        static Sized of(Op op, byte[] data) {
            return new Sized(op, OP_OVERHEAD_BYTES + utf8Length(op.getPath()) + (data == null ? 0 : data.length));
        }
    }

    /** The UTF-8 length of {@code s} without encoding it (one op per node: 1,025 in a 64 × 1,024 owners write). */
    static int utf8Length(String s) {
        int bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3; // an unpaired surrogate is encoded as '?' (1 byte): over-counting is safe here
            }
        }
        return bytes;
    }

    private static String target(ZkOp op, Prefix owners, Prefix offsets) {
        if (op instanceof ZkOp.PutGroup p) {
            return ZkPaths.group(p.group());
        } else if (op instanceof ZkOp.PutRegistration p) {
            return ZkPaths.registration(p.group(), p.consumerId());
        } else if (op instanceof ZkOp.DeleteRegistration p) {
            return ZkPaths.registration(p.group(), p.consumerId());
        } else if (op instanceof ZkOp.PutOwner p) {
            return owners.of(p.group(), p.partition().topic()) + "/" + p.partition().partition();
        } else if (op instanceof ZkOp.DeleteOwner p) {
            return owners.of(p.group(), p.partition().topic()) + "/" + p.partition().partition();
        } else if (op instanceof ZkOp.PutOffset p) {
            return offsets.of(p.group(), p.partition().topic()) + "/" + p.partition().partition();
        }
        return null; // PutHandover: /consumers/epoch always exists
    }

    /** The last {@code (group, topic)} prefix built, reused while the next op has the same group and topic. */
    private static final class Prefix {
        private final BinaryOperator<String> build;
        private String group;
        private String topic;
        private String prefix;

        Prefix(BinaryOperator<String> build) {
            this.build = build;
        }

        String of(String group, String topic) {
            if (!group.equals(this.group) || !topic.equals(this.topic)) {
                this.group = group;
                this.topic = topic;
                this.prefix = build.apply(group, topic);
            }
            return prefix;
        }
    }

    /**
     * @param owners the owner values encoded so far in this write: a member owns many partitions of a generation,
     *               and their ops share one array (ZooKeeper only reads it when it serialises the multi)
     */
    private static void translate(ZkOp op, String target, int epoch, int brokerId, Tree tree,
            Map<OwnerValue, byte[]> owners, List<Sized> out) {
        if (op instanceof ZkOp.PutGroup p) {
            tree.put(target, ZnodeCodec.encodeGroup(new GroupValue(p.generation(), p.assignor())), out);
        } else if (op instanceof ZkOp.PutRegistration p) {
            tree.put(target, ZnodeCodec.encodeRegistration(p.registration()), out);
        } else if (op instanceof ZkOp.PutOwner p) {
            tree.put(target, owners.computeIfAbsent(new OwnerValue(p.owner(), p.generation()),
                    ZnodeCodec::encodeOwner), out);
        } else if (op instanceof ZkOp.PutOffset p) {
            tree.put(target, ZnodeCodec.encodeOffset(p.offset(), p.reportedBy()), out);
        } else if (op instanceof ZkOp.DeleteRegistration || op instanceof ZkOp.DeleteOwner) {
            tree.delete(target, out);
        } else if (op instanceof ZkOp.PutHandover) {
            // Conditional on the epoch itself: only the coordinator of that epoch records its own handover.
            byte[] data = ZnodeCodec.encodeEpoch(new EpochValue(brokerId, true));
            out.add(Sized.of(Op.setData(ZkPaths.EPOCH, data, epoch), data));
        }
    }

    /** The tree as the probes found it, updated by the ops planned so far. */
    private static final class Tree {
        private final Predicate<String> probed;
        private final Map<String, Boolean> changed = new HashMap<>();

        Tree(Predicate<String> probed) {
            this.probed = probed;
        }

        boolean exists(String path) {
            Boolean known = changed.get(path);
            return known != null ? known : probed.test(path);
        }

        void ensure(String path, List<Sized> out) {
            if (path.equals("/") || exists(path)) {
                return;
            }
            ensure(ZkPaths.parent(path), out);
            out.add(Sized.of(Op.create(path, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT), null));
            changed.put(path, true);
        }

        void put(String path, byte[] data, List<Sized> out) {
            if (exists(path)) {
                out.add(Sized.of(Op.setData(path, data, -1), data));
                return;
            }
            ensure(ZkPaths.parent(path), out);
            out.add(Sized.of(Op.create(path, data, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT), data));
            changed.put(path, true);
        }

        void delete(String path, List<Sized> out) {
            if (exists(path)) {
                out.add(Sized.of(Op.delete(path, -1), null));
                changed.put(path, false);
            }
        }
    }
}
