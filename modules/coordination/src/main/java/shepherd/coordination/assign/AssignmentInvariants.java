package shepherd.coordination.assign;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks every assignment must pass, as values, so the property tests, the simulation's invariant checker and
 * (cheaply, before writing owners) the coordinator can share them.
 *
 * <ul>
 *   <li>{@link #wellFormedViolations}: DESIGN §7 {@code AssignmentWellFormed}: every partition of a topic with
 *       subscribers has an owner; every owner is subscribed to the partition's topic; no owned partition is unknown.
 *       (Two owners for one partition cannot be expressed: see {@link Assignment.Builder#assign}.)
 *   <li>{@link #balanceViolations}: per topic, the counts of the subscribed streams (zero included) differ by at
 *       most one. Range and sticky promise this always; round-robin when subscriptions are identical.
 * </ul>
 */
public final class AssignmentInvariants {
    private AssignmentInvariants() {}

    /** One broken invariant, naming what broke it. */
    public sealed interface Violation {}

    /** A partition of a subscribed topic that nobody owns. */
    public record Unowned(TopicPartition partition) implements Violation {}

    /** A partition owned by a stream that is not subscribed to its topic. */
    public record OwnedByUnsubscribed(TopicPartition partition, StreamId owner) implements Violation {}

    /** An owned partition the input does not list. */
    public record UnknownPartition(TopicPartition partition, StreamId owner) implements Violation {}

    /** A topic whose subscribed streams' counts differ by more than one. */
    public record Unbalanced(String topic, StreamId fewest, int fewestCount, StreamId most, int mostCount)
            implements Violation {}

    public static List<Violation> wellFormedViolations(AssignmentInput input, Assignment assignment) {
        List<Violation> violations = new ArrayList<>();
        for (String topic : input.assignableTopics()) {
            for (PartitionId partition : input.partitions(topic)) {
                TopicPartition tp = new TopicPartition(topic, partition);
                if (!assignment.owners().containsKey(tp)) {
                    violations.add(new Unowned(tp));
                }
            }
        }
        Map<String, Set<StreamId>> subscribed = new HashMap<>();
        Map<String, Set<PartitionId>> existing = new HashMap<>();
        assignment.owners().forEach((tp, owner) -> {
            if (!existing.computeIfAbsent(tp.topic(), t -> new HashSet<>(input.partitions(t))).contains(tp.partition())) {
                violations.add(new UnknownPartition(tp, owner));
            } else if (!subscribed.computeIfAbsent(tp.topic(), t -> new HashSet<>(input.streams(t))).contains(owner)) {
                violations.add(new OwnedByUnsubscribed(tp, owner));
            }
        });
        return violations;
    }

    public static List<Violation> balanceViolations(AssignmentInput input, Assignment assignment) {
        Map<String, Map<StreamId, Integer>> counts = new HashMap<>();
        assignment.owners().forEach((tp, owner) ->
                counts.computeIfAbsent(tp.topic(), t -> new HashMap<>()).merge(owner, 1, Integer::sum));
        List<Violation> violations = new ArrayList<>();
        for (String topic : input.assignableTopics()) {
            Map<StreamId, Integer> ofTopic = counts.getOrDefault(topic, Map.of());
            StreamId fewest = null;
            StreamId most = null;
            for (StreamId stream : input.streams(topic)) {
                int count = ofTopic.getOrDefault(stream, 0);
                if (fewest == null || count < ofTopic.getOrDefault(fewest, 0)) {
                    fewest = stream;
                }
                if (most == null || count > ofTopic.getOrDefault(most, 0)) {
                    most = stream;
                }
            }
            int fewestCount = ofTopic.getOrDefault(fewest, 0);
            int mostCount = ofTopic.getOrDefault(most, 0);
            if (mostCount - fewestCount > 1) {
                violations.add(new Unbalanced(topic, fewest, fewestCount, most, mostCount));
            }
        }
        return violations;
    }
}
