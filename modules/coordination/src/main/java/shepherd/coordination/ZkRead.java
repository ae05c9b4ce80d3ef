package shepherd.coordination;

import java.util.Objects;

/**
 * A read the coordinator asks of the adapter. Each read also arms the watch of the seed's listener for that path
 * (watches are one-shot; re-arming is part of re-reading, D7).
 */
public sealed interface ZkRead {

    /** {@code /brokers/topics} and every topic's partitions; arms TopicChange and every TopicPartitionChange. */
    record Topics() implements ZkRead {}

    /** One topic's partitions; arms its TopicPartitionChange. */
    record Topic(String topic) implements ZkRead {
        public Topic {
            Objects.requireNonNull(topic, "topic");
        }
    }

    /** The children of {@code /consumers/groups}; arms GroupChange. */
    record Groups() implements ZkRead {}

    /** One group's subtree; arms its GroupMemberChange. */
    record Group(String group) implements ZkRead {
        public Group {
            Objects.requireNonNull(group, "group");
        }
    }

    /**
     * Only the children of {@code /consumers/groups/[g]/ids}; arms its GroupMemberChange. What a member change of a
     * group we hold needs: one request, not one per owner and offset as {@link Group} costs.
     */
    record Members(String group) implements ZkRead {
        public Members {
            Objects.requireNonNull(group, "group");
        }
    }
}
