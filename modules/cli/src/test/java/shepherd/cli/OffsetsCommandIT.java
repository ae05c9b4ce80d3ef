package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import shepherd.cli.admin.ZkAdmin;
import shepherd.cli.commands.OffsetsCommand;
import shepherd.consumer.ShepherdConsumer;

/**
 * {@code shepherd offsets reset} on a group with a real consumer: refused while it is a member, written with
 * {@code --force}, and written once it has left.
 */
class OffsetsCommandIT {
    private static final String GROUP = GroupRun.GROUP;
    private static final String TOPIC = GroupRun.TOPIC;

    @TempDir
    Path root;

    private static CommandRun offsets(String... args) {
        return CommandRun.run(new OffsetsCommand(), args);
    }

    @Test
    void resetIsRefusedWhileTheGroupHasMembersAndWrittenWithForceOrOnceTheyLeft() throws Exception {
        try (GroupRun run = new GroupRun(root, 1);
             ZkAdmin zk = ZkAdmin.open(run.cluster.zookeeperConnectString())) {
            String connect = run.cluster.zookeeperConnectString();
            run.produce(10);
            ShepherdConsumer consumer = run.start("c1");
            consumer.awaitRegistered(Duration.ofSeconds(30));
            run.awaitAllDelivered();
            GroupRun.await(30_000, () -> "offsets committed: " + run.cluster.committedOffsets(GROUP),
                    () -> run.cluster.committedOffsets(GROUP).getOrDefault(TOPIC, Map.of()).size() == 3);

            CommandRun refused = offsets("reset", "--zookeeper", connect, "--group", GROUP, "--topic", TOPIC,
                    "--to-earliest").assertOneLineError(1);
            assertTrue(refused.err().contains("group billing has 1 live member (c1): stop them first, or pass"
                    + " --force"), refused::toString);

            CommandRun forced = offsets("reset", "--zookeeper", connect, "--group", GROUP, "--topic", TOPIC,
                    "--to-offset", "3", "--partition", "2-0", "--force").assertOk();
            assertTrue(forced.err().contains("warning: group billing has live members (c1)"), forced::toString);
            assertTrue(forced.out().contains("  2-0: "), forced::toString);
            assertTrue(forced.out().contains(" -> 3\n"), forced::toString);

            consumer.shutdown();
            GroupRun.await(30_000, () -> "c1 deregistered: " + zk.members(GROUP), () -> zk.members(GROUP).isEmpty());

            CommandRun earliest = offsets("reset", "--zookeeper", connect, "--group", GROUP, "--topic", TOPIC,
                    "--to-earliest").assertOk();
            assertTrue(earliest.out().contains("reset offsets of group billing, topic events (3 partitions):"),
                    earliest::toString);
            assertTrue(earliest.out().contains("  1-0: 10 -> 0\n"), earliest::toString);
            assertEquals(Map.of("1-0", 0L, "2-0", 0L, "3-0", 0L), run.cluster.committedOffsets(GROUP).get(TOPIC));

            run.produce(5);
            CommandRun latest = offsets("reset", "--zookeeper", connect, "--group", GROUP, "--topic", TOPIC,
                    "--to-latest", "--file-root", root.toString()).assertOk();
            assertTrue(latest.out().contains("  3-0: 0 -> 15\n"), latest::toString);
            assertEquals(Map.of("1-0", 15L, "2-0", 15L, "3-0", 15L), run.cluster.committedOffsets(GROUP).get(TOPIC));
        }
    }

    /**
     * The coordinator re-reads a group that has been empty before it starts the group's next member, so a reset
     * (here a lowered offset: 10 back to 4, a replay) reaches the next consumer under the same coordinator.
     */
    @Test
    void aResetReachesTheNextConsumerOfTheGroupWithoutACoordinatorChange() throws Exception {
        try (GroupRun run = new GroupRun(root, 1);
             ZkAdmin zk = ZkAdmin.open(run.cluster.zookeeperConnectString())) {
            run.produce(10);
            ShepherdConsumer first = run.start("c1");
            first.awaitRegistered(Duration.ofSeconds(30));
            run.awaitAllDelivered();
            first.shutdown();
            GroupRun.await(30_000, () -> "c1 deregistered: " + zk.members(GROUP), () -> zk.members(GROUP).isEmpty());
            assertEquals(Map.of("1-0", 10L, "2-0", 10L, "3-0", 10L), run.cluster.committedOffsets(GROUP).get(TOPIC));
            int coordinator = run.cluster.awaitCoordinator(Duration.ofSeconds(20));

            CommandRun reset = offsets("reset", "--zookeeper", run.cluster.zookeeperConnectString(), "--group", GROUP,
                    "--topic", TOPIC, "--to-offset", "4").assertOk();
            assertFalse(reset.err().contains("note:"), reset::toString);

            int before = run.deliveries().size();
            run.start("c2");
            GroupRun.await(30_000, () -> "records 4..9 of each partition delivered again, got "
                    + (run.deliveries().size() - before), () -> run.deliveries().size() - before == 18);
            assertTrue(run.deliveries().subList(before, run.deliveries().size()).stream()
                    .allMatch(d -> d.offset() >= 4), "c2 starts at the reset offset");
            assertEquals(coordinator, run.cluster.awaitCoordinator(Duration.ofSeconds(20)), "the same coordinator");
            // c2's commits move the reset offsets forward again from 4 (they would be ignored as "not beyond" 10).
            GroupRun.await(30_000, () -> "offsets committed by c2: " + run.cluster.committedOffsets(GROUP),
                    () -> Map.of("1-0", 10L, "2-0", 10L, "3-0", 10L).equals(
                            run.cluster.committedOffsets(GROUP).get(TOPIC)));
        }
    }

    @Test
    void refusals() {
        try (GroupRun run = new GroupRun(root, 1)) {
            String connect = run.cluster.zookeeperConnectString();
            List<String> base = List.of("reset", "--zookeeper", connect, "--group", GROUP, "--topic", TOPIC);
            assertTrue(offsets(with(base, "--to-latest")).assertOneLineError(2).err()
                    .contains("--to-latest needs --file-root"));
            assertTrue(offsets(with(base, "--to-offset", "-1")).assertOneLineError(2).err().contains("got -1"));
            assertTrue(offsets(with(base, "--to-earliest", "--partition", "9-0")).assertOneLineError(1).err()
                    .contains("partition 9-0 is not a partition of topic 'events' (it has 3: 1-0, 2-0, 3-0)"));
            assertTrue(offsets(with(base, "--to-earliest", "--partition", "1-x")).assertOneLineError(2).err()
                    .contains("1-x"));
            assertTrue(offsets("reset", "--zookeeper", connect, "--group", GROUP, "--topic", "ghost",
                    "--to-earliest").assertOneLineError(1).err().contains("topic 'ghost' does not exist"));
            assertTrue(offsets("reset", "--zookeeper", connect, "--group", "a b", "--topic", TOPIC,
                    "--to-earliest").assertOneLineError(2).err().contains("group 'a b' has the character ' '"));
            assertEquals(2, offsets(with(base, "--to-earliest", "--to-offset", "1")).exitCode(),
                    "one target only");
            assertEquals(2, offsets(base.toArray(String[]::new)).exitCode(), "a target is required");
        }
    }

    private static String[] with(List<String> base, String... more) {
        return java.util.stream.Stream.concat(base.stream(), java.util.Arrays.stream(more)).toArray(String[]::new);
    }
}
