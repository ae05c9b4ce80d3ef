package shepherd.coordination.assign;

import java.util.List;

/**
 * {@code range}, the default: Kafka 0.7/0.8's assignment, exactly (DESIGN §6).
 *
 * <p>Each topic on its own: partitions sorted ({@link PartitionId} order), streams sorted ({@link StreamId}
 * order); with P partitions and S streams, {@code per = P / S} and {@code extra = P % S}; stream i (from 0) takes
 * the contiguous run starting at {@code per * i + min(i, extra)} of length {@code per + (i < extra ? 1 : 0)}. So
 * the first {@code extra} streams get one partition more, and when S > P the streams from index P on get nothing.
 *
 * <p>Per topic, counts differ by at most one. Across topics they do not balance: the same low-sorting streams
 * take the extra partition of every topic. O(P + S) per topic.
 */
public final class RangeAssignor implements Assignor {
    public static final String NAME = "range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Assignment assign(AssignmentInput input) {
        Assignment.Builder assignment = Assignment.builder(input.partitionCount());
        for (String topic : input.assignableTopics()) {
            assignTopic(topic, input.partitions(topic), input.streams(topic), assignment);
        }
        return assignment.build();
    }

    private static void assignTopic(
            String topic, List<PartitionId> partitions, List<StreamId> streams, Assignment.Builder assignment) {
        int perStream = partitions.size() / streams.size();
        int extra = partitions.size() % streams.size();
        int streamsWithAny = Math.min(streams.size(), partitions.size());
        for (int i = 0; i < streamsWithAny; i++) {
            int start = perStream * i + Math.min(i, extra);
            int count = perStream + (i < extra ? 1 : 0);
            StreamId stream = streams.get(i);
            for (int p = start; p < start + count; p++) {
                assignment.assign(new TopicPartition(topic, partitions.get(p)), stream);
            }
        }
    }
}
