package shepherd.coordination;

import java.util.Map;
import java.util.Objects;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;

/**
 * One logical change to the coordinator's part of the ZooKeeper tree (DESIGN §4). The adapter turns a list of them
 * into one {@code multi} that begins with {@code check(/consumers/epoch, epoch)}, creating parents and choosing
 * create or setData as the tree requires. Every op is idempotent: writing it twice leaves the tree as writing it
 * once, which is what lets an unknown outcome be retried.
 *
 * <p>Each op defines, once, the three things the coordinator needs of it: the node it writes ({@link #node}, by
 * which queued ops are compacted), what it changes in the coordinator's mirror of the group when it commits
 * ({@link #applyTo}), and whether a read-back shows it committed ({@link #reflectedIn}).
 */
public sealed interface ZkOp {

    String group();

    /** The node of the group's subtree this op writes: its kind and, below the group, its name. */
    Node node();

    /** What the op changes in the coordinator's mirror of its group once it commits; nothing by default. */
    default void applyTo(Mirror mirror) {
    }

    /** Whether {@code snapshot}, a read-back of the group, holds what this op writes. */
    boolean reflectedIn(GroupSnapshot snapshot);

    /**
     * The node an op writes. A record rather than the node's path: building a string per op (and one per reported
     * offset) was an eighth of what the broker's loop allocates in a rebalance of 1,024 partitions.
     */
    record Node(Kind kind, Object id) {
        public enum Kind { IDS, OWNERS, OFFSETS, GROUP, HANDOVER }

        public static final Node GROUP = new Node(Kind.GROUP, null);
        public static final Node HANDOVER = new Node(Kind.HANDOVER, null);

        public static Node offset(TopicPartition tp) {
            return new Node(Kind.OFFSETS, tp);
        }
    }

    /** The part of the coordinator's copy of a group that only a committed write of its own changes. */
    interface Mirror {
        void generation(int generation);

        Map<TopicPartition, StreamId> owners();

        Map<TopicPartition, Long> offsets();
    }

    /** {@code /consumers/groups/[g]}: generation and assignor. */
    record PutGroup(String group, int generation, String assignor) implements ZkOp {
        public PutGroup {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(assignor, "assignor");
        }

        @Override
        public Node node() {
            return Node.GROUP;
        }

        @Override
        public void applyTo(Mirror mirror) {
            mirror.generation(generation);
        }

        @Override
        public boolean reflectedIn(GroupSnapshot s) {
            return s.generation() == generation;
        }
    }

    /** {@code /consumers/groups/[g]/ids/[consumer]}. */
    record PutRegistration(String group, String consumerId, Registration registration) implements ZkOp {
        public PutRegistration {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(consumerId, "consumerId");
            Objects.requireNonNull(registration, "registration");
        }

        @Override
        public Node node() {
            return new Node(Node.Kind.IDS, consumerId);
        }

        @Override
        public boolean reflectedIn(GroupSnapshot s) {
            return registration.equals(s.registrations().get(consumerId));
        }
    }

    record DeleteRegistration(String group, String consumerId) implements ZkOp {
        public DeleteRegistration {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(consumerId, "consumerId");
        }

        @Override
        public Node node() {
            return new Node(Node.Kind.IDS, consumerId);
        }

        @Override
        public boolean reflectedIn(GroupSnapshot s) {
            return !s.registrations().containsKey(consumerId);
        }
    }

    /** {@code /consumers/groups/[g]/owners/[topic]/[partition]}: owning stream and generation. */
    record PutOwner(String group, TopicPartition partition, StreamId owner, int generation) implements ZkOp {
        public PutOwner {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(partition, "partition");
            Objects.requireNonNull(owner, "owner");
        }

        @Override
        public Node node() {
            return new Node(Node.Kind.OWNERS, partition);
        }

        @Override
        public void applyTo(Mirror mirror) {
            mirror.owners().put(partition, owner);
        }

        @Override
        public boolean reflectedIn(GroupSnapshot s) {
            return owner.equals(s.owners().get(partition));
        }
    }

    record DeleteOwner(String group, TopicPartition partition) implements ZkOp {
        public DeleteOwner {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(partition, "partition");
        }

        @Override
        public Node node() {
            return new Node(Node.Kind.OWNERS, partition);
        }

        @Override
        public void applyTo(Mirror mirror) {
            mirror.owners().remove(partition);
        }

        @Override
        public boolean reflectedIn(GroupSnapshot s) {
            return !s.owners().containsKey(partition);
        }
    }

    /**
     * {@code /consumers/groups/[g]/offsets/[topic]/[partition]}: next offset. {@code reportedBy} is the consumer
     * whose report this is, written beside the offset as {@code reported_by}.
     */
    record PutOffset(String group, TopicPartition partition, long offset, String reportedBy) implements ZkOp {
        public PutOffset {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(partition, "partition");
            Objects.requireNonNull(reportedBy, "reportedBy");
        }

        @Override
        public Node node() {
            return Node.offset(partition);
        }

        /** Offsets only move forwards, whatever order two commits of them are applied in. */
        @Override
        public void applyTo(Mirror mirror) {
            mirror.offsets().merge(partition, offset, Math::max);
        }

        @Override
        public boolean reflectedIn(GroupSnapshot s) {
            return Long.valueOf(offset).equals(s.offsets().get(partition));
        }
    }

    /** {@code /consumers/epoch}: the coordinator of {@code epoch} handed over cleanly (graceful shutdown). */
    record PutHandover(int epoch) implements ZkOp {
        @Override
        public String group() {
            return "";
        }

        @Override
        public Node node() {
            return Node.HANDOVER;
        }

        /** Not a group's node: a read-back of a group never shows it. */
        @Override
        public boolean reflectedIn(GroupSnapshot s) {
            return false;
        }
    }
}
