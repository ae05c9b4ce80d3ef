package com.example.assignors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import shepherd.coordination.assign.Assignment;
import shepherd.coordination.assign.AssignmentInput;
import shepherd.coordination.assign.AssignmentInvariants;
import shepherd.coordination.assign.Assignors;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;

class RendezvousAssignorTest {
    /** Ids whose string order differs from a naive one ({@code c-10} before {@code c-2}), as docs/assignors.md asks. */
    private static final List<String> CONSUMER_IDS = List.of("c-1", "c-10", "c-2", "Z", "b-1-0", "c-5");

    private final RendezvousAssignor assignor = new RendezvousAssignor();

    /** Two topics, {@code a} and {@code b}; each consumer subscribes to each with 0–3 streams. */
    record Group(int partitionsOfA, int partitionsOfB, List<List<Integer>> streamCounts) {
        Map<String, Map<String, Integer>> subscriptions() {
            Map<String, Map<String, Integer>> subscriptions = new LinkedHashMap<>();
            for (int c = 0; c < streamCounts.size(); c++) {
                subscriptions.put(CONSUMER_IDS.get(c), Map.of("a", streamCounts.get(c).get(0),
                        "b", streamCounts.get(c).get(1)));
            }
            return subscriptions;
        }

        AssignmentInput input(Map<String, Map<String, Integer>> subscriptions) {
            return AssignmentInput.fromSubscriptions(Map.of("a", partitions(partitionsOfA), "b",
                    partitions(partitionsOfB)), subscriptions, Map.of());
        }
    }

    @Provide
    Arbitrary<Group> groups() {
        Arbitrary<List<List<Integer>>> counts = Arbitraries.integers().between(0, 3).list().ofSize(2)
                .list().ofMinSize(1).ofMaxSize(CONSUMER_IDS.size());
        return Combinators.combine(Arbitraries.integers().between(0, 40), Arbitraries.integers().between(0, 12),
                counts).as(Group::new);
    }

    @Property(tries = 300)
    void everyPartitionHasExactlyOneSubscribedOwner(@ForAll("groups") Group group) {
        AssignmentInput input = group.input(group.subscriptions());
        assertEquals(List.of(), AssignmentInvariants.wellFormedViolations(input, assignor.assign(input)));
    }

    @Property(tries = 300)
    void aJoiningConsumerTakesPartitionsOnlyForItself(@ForAll("groups") Group group) {
        Map<String, Map<String, Integer>> subscriptions = group.subscriptions();
        Assignment before = assignor.assign(group.input(subscriptions));
        subscriptions.put("newcomer", Map.of("a", 1, "b", 2));
        Assignment after = assignor.assign(group.input(subscriptions));
        before.owners().forEach((partition, owner) -> {
            StreamId now = after.ownerOf(partition).orElseThrow();
            assertTrue(now.equals(owner) || now.consumerId().equals("newcomer"),
                    partition + " moved from " + owner + " to " + now + ", not to the newcomer");
        });
    }

    @Property(tries = 300)
    void aLeavingConsumerMovesOnlyItsOwnPartitions(@ForAll("groups") Group group) {
        Map<String, Map<String, Integer>> subscriptions = group.subscriptions();
        Assignment before = assignor.assign(group.input(subscriptions));
        String leaver = subscriptions.keySet().iterator().next();
        subscriptions.remove(leaver);
        Assignment after = assignor.assign(group.input(subscriptions));
        // A partition absent afterwards lost its last subscriber with the leaver: nobody may own it.
        after.owners().forEach((partition, now) -> {
            StreamId owner = before.ownerOf(partition).orElseThrow();
            assertTrue(now.equals(owner) || owner.consumerId().equals(leaver),
                    partition + " moved from " + owner + " to " + now + " though " + leaver + " left");
        });
    }

    @Property(tries = 100)
    void currentOwnersDoNotChangeTheResult(@ForAll("groups") Group group) {
        AssignmentInput input = group.input(group.subscriptions());
        Assignment result = assignor.assign(input);
        Map<TopicPartition, StreamId> elsewhere = new TreeMap<>();
        result.owners().keySet().forEach(p -> elsewhere.put(p, new StreamId("someone-else", 0)));
        assertEquals(result, assignor.assign(input.withCurrentOwners(elsewhere)));
    }

    @Test
    void theBrokersServiceLoaderFindsItByName() {
        // The test runs inside this module on the module path, as the assignor runs in a broker: coordination's
        // ServiceLoader sees the module's `provides` next to the three built-in assignors.
        assertInstanceOf(RendezvousAssignor.class, Assignors.byName("rendezvous"));
        assertTrue(Assignors.names().containsAll(List.of("range", "roundrobin", "sticky", "rendezvous")),
                Assignors.names().toString());
    }

    @Test
    void aPinnedExampleKeepsItsOwners() {
        // Pins the weights: if this fails, an upgrade would move the partitions of every group that uses it.
        AssignmentInput input = AssignmentInput.fromSubscriptions(Map.of("orders", partitions(8)),
                Map.of("a", Map.of("orders", 1), "b", Map.of("orders", 2)), Map.of());
        Map<String, String> owners = new TreeMap<>();
        assignor.assign(input).owners().forEach((p, s) -> owners.put(p.partition().toString(), s.toString()));
        assertEquals(Map.of("1-0", "b-1", "1-1", "a-0", "1-2", "b-0", "2-0", "a-0", "2-1", "a-0", "2-2", "a-0",
                "3-0", "a-0", "3-1", "a-0"), owners); // 8 partitions are too few to be balanced: see the next test
    }

    @Test
    void theHashIsFnv1a() {
        // The published 64-bit FNV-1a test vectors: the weights are a function anyone can recompute.
        assertEquals(0xcbf29ce484222325L, RendezvousAssignor.hash(""));
        assertEquals(0xaf63dc4c8601ec8cL, RendezvousAssignor.hash("a"));
        assertEquals(0x85944171f73967e8L, RendezvousAssignor.hash("foobar"));
    }

    @Test
    void aThousandPartitionsSpreadRoughlyEvenlyOverFourStreams() {
        AssignmentInput input = AssignmentInput.fromSubscriptions(Map.of("t", partitions(1_000)),
                Map.of("a", Map.of("t", 2), "b", Map.of("t", 1), "c", Map.of("t", 1)), Map.of());
        Map<StreamId, List<TopicPartition>> byStream = assignor.assign(input).byStream();
        assertEquals(4, byStream.size());
        // 250 expected each, a standard deviation of about 14: the weights are fixed, so this never flakes.
        byStream.forEach((stream, owned) -> assertTrue(owned.size() >= 200 && owned.size() <= 300,
                stream + " owns " + owned.size()));
    }

    /** {@code count} partitions over brokers 1, 2 and 3: 1-0, 2-0, 3-0, 1-1, ... */
    private static List<PartitionId> partitions(int count) {
        List<PartitionId> partitions = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            partitions.add(new PartitionId(i % 3 + 1, i / 3));
        }
        return partitions;
    }
}
