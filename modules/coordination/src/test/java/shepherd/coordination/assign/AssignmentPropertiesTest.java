package shepherd.coordination.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import shepherd.coordination.assign.AssignmentInvariants.OwnedByUnsubscribed;
import shepherd.coordination.assign.AssignmentInvariants.Violation;

class AssignmentPropertiesTest {
    private static final Assignor RANGE = new RangeAssignor();
    private static final Assignor ROUND_ROBIN = new RoundRobinAssignor();
    private static final Assignor STICKY = new StickyAssignor();

    @Provide
    Arbitrary<Assignor> assignors() {
        return Arbitraries.of(RANGE, ROUND_ROBIN, STICKY);
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        return Scenarios.scenarios();
    }

    @Provide
    Arbitrary<Scenario> sameSubscriptions() {
        return Scenarios.sameSubscriptions();
    }

    @Provide
    Arbitrary<AssignmentInput> inputsWithOwners() {
        return Scenarios.inputsWithOwners();
    }

    @Provide
    Arbitrary<Map<String, Integer>> joinerSubscription() {
        return Arbitraries.maps(Arbitraries.of(Scenarios.TOPICS), Arbitraries.integers().between(1, 3)).ofMinSize(1)
                .ofMaxSize(Scenarios.TOPICS.size());
    }

    // --- AssignmentWellFormed, for every assignor ---------------------------------------------------------------

    @Property
    void everyPartitionHasExactlyOneOwner(@ForAll("assignors") Assignor assignor,
                                          @ForAll("inputsWithOwners") AssignmentInput input) {
        Assignment assignment = assignor.assign(input);
        List<Violation> ownership = AssignmentInvariants.wellFormedViolations(input, assignment).stream()
                .filter(v -> !(v instanceof OwnedByUnsubscribed)).collect(Collectors.toList());
        assertEquals(List.of(), ownership);
        int subscribedPartitions = input.assignableTopics().stream().mapToInt(t -> input.partitions(t).size()).sum();
        assertEquals(subscribedPartitions, assignment.size());
    }

    @Property
    void onlySubscribedStreamsOwn(@ForAll("assignors") Assignor assignor,
                                  @ForAll("inputsWithOwners") AssignmentInput input) {
        Assignment assignment = assignor.assign(input);
        assignment.owners().forEach((tp, owner) ->
                assertTrue(input.streams(tp.topic()).contains(owner), () -> tp + " owned by " + owner));
        assertEquals(List.of(), AssignmentInvariants.wellFormedViolations(input, assignment).stream()
                .filter(v -> v instanceof OwnedByUnsubscribed).collect(Collectors.toList()));
    }

    @Property
    void assignmentIsDeterministic(@ForAll("assignors") Assignor assignor,
                                   @ForAll("inputsWithOwners") AssignmentInput input,
                                   @ForAll Random random) {
        AssignmentInput shuffled = new AssignmentInput(
                shuffledLists(input.partitionsByTopic(), random),
                shuffledLists(input.streamsByTopic(), random),
                shuffledMap(input.currentOwners(), random));
        Assignment first = assignor.assign(input);
        Assignment again = assignor.assign(shuffled);
        assertEquals(first, again);
        assertEquals(new ArrayList<>(first.owners().entrySet()), new ArrayList<>(again.owners().entrySet()));
    }

    // --- range ---------------------------------------------------------------------------------------------------

    @Property
    void rangeBalancesWithinOnePartitionPerStream(@ForAll("scenarios") Scenario scenario) {
        AssignmentInput input = scenario.input();
        assertEquals(List.of(), AssignmentInvariants.balanceViolations(input, RANGE.assign(input)));
    }

    @Property
    void rangeMatchesKafkaRangeAssignor(@ForAll("scenarios") Scenario scenario) {
        AssignmentInput input = scenario.input();
        assertEquals(KafkaReference.range(input), RANGE.assign(input).owners());
    }

    // --- round-robin ---------------------------------------------------------------------------------------------

    @Property
    void roundRobinBalancesWithinOnePartitionPerStream(@ForAll("sameSubscriptions") Scenario scenario) {
        AssignmentInput input = scenario.input();
        Assignment assignment = ROUND_ROBIN.assign(input);
        assertEquals(List.of(), AssignmentInvariants.balanceViolations(input, assignment)); // per topic
        Map<StreamId, Integer> totals = new HashMap<>();
        input.allStreams().forEach(s -> totals.put(s, 0));
        assignment.owners().values().forEach(s -> totals.merge(s, 1, Integer::sum));
        assertTrue(Collections.max(totals.values()) - Collections.min(totals.values()) <= 1, totals::toString);
    }

    @Property
    void roundRobinMatchesKafkaRoundRobinAssignor(@ForAll("scenarios") Scenario scenario) {
        AssignmentInput input = scenario.input();
        assertEquals(KafkaReference.roundRobin(input), ROUND_ROBIN.assign(input).owners());
    }

    // --- sticky --------------------------------------------------------------------------------------------------

    @Property
    void stickyKeepsBalance(@ForAll("inputsWithOwners") AssignmentInput input) {
        assertEquals(List.of(), AssignmentInvariants.balanceViolations(input, STICKY.assign(input)));
    }

    @Property
    void stickyWithoutOwnersEqualsRange(@ForAll("scenarios") Scenario scenario) {
        AssignmentInput input = scenario.input();
        assertEquals(RANGE.assign(input), STICKY.assign(input));
    }

    @Property
    void stickyMovesTheMinimumWhenOneMemberJoins(@ForAll("scenarios") Scenario scenario,
                                                 @ForAll("joinerSubscription") Map<String, Integer> joiner) {
        Assignment before = STICKY.assign(scenario.input());
        AssignmentInput input = scenario.with(Scenarios.JOINER, joiner).input(before.owners());
        Assignment after = STICKY.assign(input);
        int moved = Moves.moved(input, after);
        assertEquals(Moves.lowerBound(input), moved);
        // Nobody but the joiner gains: every move hands a partition to the new member.
        after.owners().forEach((tp, owner) -> {
            if (!owner.consumerId().equals(Scenarios.JOINER)) {
                assertEquals(owner, before.owners().get(tp), () -> tp + " went to " + owner);
            }
        });
    }

    @Property
    void stickyMovesTheMinimumWhenOneMemberLeaves(@ForAll("scenarios") Scenario scenario,
                                                  @ForAll Random random) {
        Assume.that(!scenario.subscriptions().isEmpty());
        List<String> consumers = scenario.consumers();
        String leaver = consumers.get(random.nextInt(consumers.size()));
        Assignment before = STICKY.assign(scenario.input());
        AssignmentInput input = scenario.without(leaver).input(before.owners());
        Assignment after = STICKY.assign(input);
        // Only the leaver's partitions are placed anew; nobody who stays loses one.
        assertEquals(0, Moves.lowerBound(input));
        assertEquals(0, Moves.moved(input, after));
    }

    @Property
    void stickyMovesTheMinimumAfterAnyChange(@ForAll("inputsWithOwners") AssignmentInput input) {
        assertEquals(Moves.lowerBound(input), Moves.moved(input, STICKY.assign(input)));
    }

    @Property
    void lowerBoundIsTheBestChoiceOfCeilings(@ForAll("inputsWithOwners") AssignmentInput input) {
        Assume.that(input.assignableTopics().stream().allMatch(t -> input.streams(t).size() <= 12));
        assertEquals(Moves.lowerBoundByBruteForce(input), Moves.lowerBound(input));
    }

    @Property
    void stickyIsStableWhenNothingChanges(@ForAll("inputsWithOwners") AssignmentInput input) {
        Assignment first = STICKY.assign(input);
        AssignmentInput again = input.withCurrentOwners(first.owners());
        Assignment second = STICKY.assign(again);
        assertEquals(first, second);
        assertEquals(0, Moves.moved(again, second));
    }

    private static <T> Map<String, List<T>> shuffledLists(Map<String, List<T>> byTopic, Random random) {
        List<String> topics = new ArrayList<>(byTopic.keySet());
        Collections.shuffle(topics, random);
        Map<String, List<T>> shuffled = new LinkedHashMap<>();
        for (String topic : topics) {
            List<T> values = new ArrayList<>(byTopic.get(topic));
            Collections.shuffle(values, random);
            shuffled.put(topic, values);
        }
        return shuffled;
    }

    private static <K, V> Map<K, V> shuffledMap(Map<K, V> map, Random random) {
        List<K> keys = new ArrayList<>(map.keySet());
        Collections.shuffle(keys, random);
        Map<K, V> shuffled = new LinkedHashMap<>();
        keys.forEach(k -> shuffled.put(k, map.get(k)));
        return shuffled;
    }
}
