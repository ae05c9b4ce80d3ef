package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import shepherd.cli.DeliveryChecks.Delivery;
import shepherd.consumer.ShepherdConsumer;

/**
 * The consumer library against real brokers, a real ZooKeeper and real sockets (issue: the consumer library
 * applications use): three consumers share a topic of twelve partitions ({@code 1-0 … 3-3}) through the file
 * source, and members leave, die, lose their coordinator, commit by hand and come back. Every test checks that
 * every record produced is delivered, that no (partition, generation) has two consumers, and counts duplicates:
 * none where offsets travel with the handover (Stop and Leave responses), only records taken after the last
 * commit where a consumer dies or commits by hand.
 */
class ConsumerGroupIT {
    private static final List<String> THREE = List.of("c1", "c2", "c3");

    private static void checkOwnership(GroupRun run) {
        assertEquals(Map.of(), run.sharedGenerations(), "a partition had two consumers in one generation");
    }

    @Test
    void everyRecordReachesItsPartitionsOneOwner(@TempDir Path root) {
        try (GroupRun run = new GroupRun(root, 4)) {
            run.produce(30);
            THREE.forEach(run::start);
            run.awaitBalanced(THREE);
            run.produce(30);
            run.awaitAllDelivered();
            checkOwnership(run);
            assertEquals(0, run.duplicates(), "auto-commit hands offsets over in Stop responses: "
                    + run.duplicateDeliveries());
            Map<String, Map<String, String>> owners = run.cluster.owners(GroupRun.GROUP);
            assertEquals(12, owners.get(GroupRun.TOPIC).size(), owners.toString());
            assertEquals(Set.copyOf(THREE), Set.copyOf(owners.get(GroupRun.TOPIC).values()));
        }
    }

    @Test
    void aConsumerShutDownHandsItsPartitionsOverAtTheCommittedOffsets(@TempDir Path root) {
        try (GroupRun run = new GroupRun(root, 4)) {
            run.startMidFlow(THREE);
            Set<String> leaving = Set.copyOf(run.consumers.get("c2").status().assigned());
            run.consumers.get("c2").shutdown();
            int after = run.deliveries().size();
            run.produce(40);
            run.awaitAllDelivered();
            checkOwnership(run);
            assertEquals(0, run.duplicates(), "Leave carries the final offsets: " + run.duplicateDeliveries());
            Map<String, Set<String>> later = run.partitionsByConsumer(after);
            assertTrue(!later.containsKey("c2") || later.get("c2").isEmpty(), later.toString());
            assertTrue(leaving.stream().map(p -> p.substring(p.indexOf('/') + 1))
                    .allMatch(p -> later.values().stream().anyMatch(s -> s.contains(p))), later + " vs " + leaving);
        }
    }

    @Test
    void aConsumerKilledWithoutGoodbyeLosesNothingAndDuplicatesOnlyWhatItHadNotCommitted(@TempDir Path root) {
        try (GroupRun run = new GroupRun(root, 4)) {
            run.startMidFlow(THREE);
            ShepherdConsumer victim = run.consumers.get("c2");
            List<String> victimPartitions = victim.status().assigned().stream()
                    .map(p -> p.substring(p.indexOf('/') + 1)).toList();
            // Read before the death: committed offsets only grow, so this is a lower bound of what it had.
            Map<String, Long> committedAtDeath = run.cluster.committedOffsets(GroupRun.GROUP)
                    .getOrDefault(GroupRun.TOPIC, Map.of());
            victim.halt();
            run.produce(40);
            run.awaitBalanced(List.of("c1", "c3"));
            run.awaitAllDelivered();
            checkOwnership(run);
            List<Delivery> dups = run.duplicateDeliveries();
            System.out.printf("killed consumer: %d duplicate deliveries of %d%n", dups.size(), run.deliveries().size());
            for (Delivery d : dups) {
                assertTrue(victimPartitions.contains(d.partition()), "duplicate outside the victim's partitions: " + d);
            }
            onlyUncommittedAreDuplicated(dups, committedAtDeath);
        }
    }

    /** Every duplicate was taken after the last commit before the failure: its offset is at or past that commit. */
    private static void onlyUncommittedAreDuplicated(List<Delivery> dups, Map<String, Long> committedBefore) {
        for (Delivery d : dups) {
            assertTrue(d.offset() >= committedBefore.getOrDefault(d.partition(), 0L),
                    "duplicate below the offset committed before the failure: " + d + " vs " + committedBefore);
        }
    }

    @Test
    void whenTheCoordinatorStopsConsumersRegisterWithTheNextOneAndContinue(@TempDir Path root) {
        try (GroupRun run = new GroupRun(root, 4)) {
            run.startMidFlow(THREE);
            int coordinator = run.cluster.coordinatorId().orElseThrow();
            int epoch = run.consumers.get("c1").status().coordinatorEpoch();
            Map<String, Long> committedBefore = run.cluster.committedOffsets(GroupRun.GROUP)
                    .getOrDefault(GroupRun.TOPIC, Map.of());
            run.cluster.stopBroker(coordinator);
            run.produce(40);
            GroupRun.await(30_000, () -> "every consumer registered with the next coordinator: "
                    + run.consumers.values().stream().map(ShepherdConsumer::status).toList(),
                    () -> run.consumers.values().stream().allMatch(c -> c.status().coordinatorEpoch() > epoch
                            && c.status().coordinatorId() != coordinator && c.status().registrations() >= 2));
            run.awaitAllDelivered();
            checkOwnership(run);
            System.out.printf("coordinator stop: %d duplicate deliveries of %d%n", run.duplicates(),
                    run.deliveries().size());
            onlyUncommittedAreDuplicated(run.duplicateDeliveries(), committedBefore);
            // The handover stops every member and writes the offsets of their Stop answers before it resigns.
            assertEquals(0, run.duplicates(), "a graceful handover loses no offset: " + run.duplicateDeliveries());
        }
    }

    @Test
    void withAutoCommitOffManualCommitsAreWhatSurvivesAHandover(@TempDir Path root) {
        try (GroupRun run = new GroupRun(root, 4)) {
            for (String id : THREE) {
                run.start(run.config(id).autoCommit(false).build(), 5);
            }
            run.awaitBalanced(THREE);
            run.produce(40);
            run.awaitDeliveries(200);
            run.consumers.get("c3").shutdown();
            run.produce(20);
            run.awaitBalanced(List.of("c1", "c2"));
            run.awaitAllDelivered();
            checkOwnership(run);
            System.out.printf("manual commits: %d duplicate deliveries of %d%n", run.duplicates(),
                    run.deliveries().size());
            // Commit what everyone took, then the committed offsets are the ends of the logs.
            GroupRun.await(10_000, () -> "final manual commits land: " + run.cluster.committedOffsets(GroupRun.GROUP),
                    () -> {
                        run.consumers.values().forEach(c -> {
                            try {
                                c.commitOffsets();
                            } catch (RuntimeException e) {
                                // shut down or rebalancing: retried by the next poll
                            }
                        });
                        Map<String, Long> committed = run.cluster.committedOffsets(GroupRun.GROUP)
                                .getOrDefault(GroupRun.TOPIC, Map.of());
                        return run.partitions.stream().allMatch(p -> committed.getOrDefault(p, 0L) == 60L);
                    });
        }
    }

    @Test
    void aRestartedGroupResumesAtItsCommittedOffsets(@TempDir Path root) {
        try (GroupRun run = new GroupRun(root, 4)) {
            run.produce(20);
            run.start("c1");
            run.start("c2");
            run.awaitAllDelivered();
            run.consumers.get("c1").shutdown();
            run.consumers.get("c2").shutdown();
            // shutdown() returns once the Leave is answered, which is once its final offsets are written.
            assertEquals("left the group", run.consumers.get("c2").status().termination());
            Map<String, Long> committed = run.cluster.committedOffsets(GroupRun.GROUP)
                    .getOrDefault(GroupRun.TOPIC, Map.of());
            assertEquals(12, committed.size(), committed.toString());
            assertTrue(committed.values().stream().allMatch(o -> o == 20L), committed.toString());

            int before = run.deliveries().size();
            run.produce(10);
            run.start("c4");
            run.start("c5");
            run.awaitAllDelivered();
            List<Delivery> resumed = run.deliveries().subList(before, run.deliveries().size());
            assertTrue(resumed.stream().allMatch(d -> d.offset() >= 20), "delivered again: " + resumed);
            assertEquals(0, run.duplicates());
            checkOwnership(run);
        }
    }
}
