package shepherd.coordination;

import java.util.Objects;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;

/**
 * One logical change to the coordinator's part of the ZooKeeper tree (DESIGN §4). The adapter turns a list of them
 * into one {@code multi} that begins with {@code check(/consumers/epoch, epoch)}, creating parents and choosing
 * create or setData as the tree requires. Every op is idempotent: writing it twice leaves the tree as writing it
 * once, which is what lets an unknown outcome be retried.
 */
public sealed interface ZkOp {

    String group();

    /** {@code /consumers/groups/[g]}: generation and assignor. */
    record PutGroup(String group, int generation, String assignor) implements ZkOp {
        public PutGroup {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(assignor, "assignor");
        }
    }

    /** {@code /consumers/groups/[g]/ids/[consumer]}. */
    record PutRegistration(String group, String consumerId, Registration registration) implements ZkOp {
        public PutRegistration {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(consumerId, "consumerId");
            Objects.requireNonNull(registration, "registration");
        }
    }

    record DeleteRegistration(String group, String consumerId) implements ZkOp {
        public DeleteRegistration {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(consumerId, "consumerId");
        }
    }

    /** {@code /consumers/groups/[g]/owners/[topic]/[partition]}: owning stream and generation. */
    record PutOwner(String group, TopicPartition partition, StreamId owner, int generation) implements ZkOp {
        public PutOwner {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(partition, "partition");
            Objects.requireNonNull(owner, "owner");
        }
    }

    record DeleteOwner(String group, TopicPartition partition) implements ZkOp {
        public DeleteOwner {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(partition, "partition");
        }
    }

    /**
     * {@code /consumers/groups/[g]/offsets/[topic]/[partition]}: next offset. {@code reportedBy} is the consumer
     * whose report this is (for checkers; not written).
     */
    record PutOffset(String group, TopicPartition partition, long offset, String reportedBy) implements ZkOp {
        public PutOffset {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(partition, "partition");
            Objects.requireNonNull(reportedBy, "reportedBy");
        }
    }

    /** {@code /consumers/epoch}: the coordinator of {@code epoch} handed over cleanly (graceful shutdown). */
    record PutHandover(int epoch) implements ZkOp {
        @Override
        public String group() {
            return "";
        }
    }
}
