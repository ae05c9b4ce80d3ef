package shepherd.coordination.assign;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Kafka's assignors transcribed as literally as Java allows, slow on purpose (indexOf, stepping around the ring),
 * as oracles for the fast implementations. Range: kafka.consumer.RangeAssignor (0.8). Round-robin:
 * org.apache.kafka.clients.consumer.RoundRobinAssignor (partitions sorted by topic then partition; the 0.8 Scala
 * one ordered them by hash code instead). The order of ids is the input's, i.e. DESIGN §6's, not Kafka 0.8's
 * whole-string order of thread ids (see docs/assignors.md, "Ordering of ids").
 */
final class KafkaReference {
    private KafkaReference() {}

    static Map<TopicPartition, StreamId> range(AssignmentInput input) {
        Map<TopicPartition, StreamId> owners = new HashMap<>();
        input.streamsByTopic().forEach((topic, curConsumers) -> {
            List<PartitionId> curPartitions = input.partitions(topic);
            if (curConsumers.isEmpty()) {
                return;
            }
            int nPartsPerConsumer = curPartitions.size() / curConsumers.size();
            int nConsumersWithExtraPart = curPartitions.size() % curConsumers.size();
            for (StreamId consumerThreadId : curConsumers) {
                int myConsumerPosition = curConsumers.indexOf(consumerThreadId);
                int startPart = nPartsPerConsumer * myConsumerPosition + Math.min(myConsumerPosition, nConsumersWithExtraPart);
                int nParts = nPartsPerConsumer + (myConsumerPosition + 1 > nConsumersWithExtraPart ? 0 : 1);
                for (int i = startPart; i < startPart + nParts; i++) {
                    owners.put(new TopicPartition(topic, curPartitions.get(i)), consumerThreadId);
                }
            }
        });
        return owners;
    }

    static Map<TopicPartition, StreamId> roundRobin(AssignmentInput input) {
        Map<TopicPartition, StreamId> owners = new HashMap<>();
        List<StreamId> ring = new ArrayList<>(input.allStreams());
        List<TopicPartition> all = new ArrayList<>();
        input.partitionsByTopic().forEach((topic, partitions) -> {
            if (!input.streams(topic).isEmpty()) {
                partitions.forEach(p -> all.add(new TopicPartition(topic, p)));
            }
        });
        all.sort(null);
        int cursor = 0;
        for (TopicPartition partition : all) {
            while (!input.streams(partition.topic()).contains(ring.get(cursor))) {
                cursor = (cursor + 1) % ring.size();
            }
            owners.put(partition, ring.get(cursor));
            cursor = (cursor + 1) % ring.size();
        }
        return owners;
    }
}
