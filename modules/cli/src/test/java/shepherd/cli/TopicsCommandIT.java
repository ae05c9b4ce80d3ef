package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import shepherd.cli.admin.ZkAdmin;
import shepherd.cli.commands.TopicsCommand;
import shepherd.cli.local.LocalCluster;
import shepherd.zookeeper.EmbeddedZooKeeper;

/** {@code shepherd topics} against a real cluster: two brokers and an embedded ZooKeeper. */
class TopicsCommandIT {
    private static LocalCluster cluster;
    private static String zk;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.builder().brokers(2).start();
        zk = cluster.zookeeperConnectString();
    }

    @AfterAll
    static void closeCluster() {
        cluster.close();
    }

    private static CommandRun topics(String... args) {
        return CommandRun.run(new TopicsCommand(), args);
    }

    private static SortedMap<Integer, Integer> partitions(String topic) {
        try (ZkAdmin admin = ZkAdmin.open(zk)) {
            return admin.topicPartitions(topic).orElse(new TreeMap<>());
        }
    }

    @Test
    void createPlacesPartitionsOnTheRegisteredBrokersAndDescribeNamesThem() {
        CommandRun created = topics("create", "orders", "--zookeeper", zk, "--partitions-per-broker", "2").assertOk();
        assertTrue(created.out().contains("created topic orders: 2 partitions per broker on brokers 1,2 (4"
                + " partitions)"), created::toString);
        assertEquals(Map.of(1, 2, 2, 2), partitions("orders"));

        CommandRun described = topics("describe", "orders", "--zookeeper", zk).assertOk();
        assertEquals("topic orders: 4 partitions on 2 brokers\nbroker 1: 1-0 1-1\nbroker 2: 2-0 2-1\n",
                described.out());
    }

    @Test
    void addGrowsATopicAndRefusesToShrinkIt() {
        topics("create", "payments", "--zookeeper", zk, "--partitions-per-broker", "1").assertOk();

        CommandRun again = topics("create", "payments", "--zookeeper", zk, "--partitions-per-broker", "3")
                .assertOneLineError(1);
        assertTrue(again.err().contains("topic 'payments' already exists with partitions 1 on broker 1, 1 on"
                + " broker 2; use --add to grow it"), again::toString);
        CommandRun grown = topics("create", "payments", "--zookeeper", zk, "--partitions-per-broker", "3", "--add")
                .assertOk();
        assertTrue(grown.out().contains("grew topic payments by 4 partitions: 1-1 1-2 2-1 2-2"), grown::toString);
        assertEquals(Map.of(1, 3, 2, 3), partitions("payments"));

        CommandRun same = topics("create", "payments", "--zookeeper", zk, "--partitions-per-broker", "3", "--add")
                .assertOk();
        assertTrue(same.out().contains("unchanged"), same::toString);

        CommandRun shrink = topics("create", "payments", "--zookeeper", zk, "--partitions-per-broker", "2", "--add")
                .assertOneLineError(1);
        assertTrue(shrink.err().contains("cannot shrink topic 'payments' on broker 1 from 3 to 2 partitions"),
                shrink::toString);
        assertEquals(Map.of(1, 3, 2, 3), partitions("payments"), "a refused write changes nothing");

        CommandRun missing = topics("create", "nothing-here", "--zookeeper", zk, "--partitions-per-broker", "2",
                "--add").assertOneLineError(1);
        assertTrue(missing.err().contains("topic 'nothing-here' does not exist"), missing::toString);
    }

    @Test
    void explicitBrokersAndListWithCounts() {
        topics("create", "audit", "--zookeeper", zk, "--partitions-per-broker", "1", "--brokers", "1,5").assertOk();
        assertEquals(Map.of(1, 1, 5, 1), partitions("audit"));
        CommandRun list = topics("list", "--zookeeper", zk).assertOk();
        assertTrue(list.out().contains("audit\tpartitions=2\tbrokers=1:1,5:1\n"), list::toString);
    }

    @Test
    void badNamesAndValuesAreOneLineUsageErrors() {
        CommandRun slash = topics("create", "a/b", "--zookeeper", zk, "--partitions-per-broker", "1")
                .assertOneLineError(2);
        assertTrue(slash.err().contains("topic 'a/b' has the character '/' at index 1"), slash::toString);
        assertTrue(topics("create", "..", "--zookeeper", zk, "--partitions-per-broker", "1").assertOneLineError(2)
                .err().contains("'..' is reserved"));
        assertTrue(topics("create", "x".repeat(256), "--zookeeper", zk, "--partitions-per-broker", "1")
                .assertOneLineError(2).err().contains("256 characters long"));
        assertTrue(topics("create", "big", "--zookeeper", zk, "--partitions-per-broker", "100001")
                .assertOneLineError(2).err().contains("got 100001"));
        assertTrue(topics("list", "--zookeeper", "127.0.0.1:99999").assertOneLineError(2).err()
                .contains("127.0.0.1:99999"));
        CommandRun unknown = topics("describe", "ghost", "--zookeeper", zk).assertOneLineError(1);
        assertTrue(unknown.err().contains("topic 'ghost' does not exist"), unknown::toString);
        assertTrue(topics("list").err().contains("--zookeeper"), "a missing required option is named");
    }

    @Test
    void aTopicNeedsRegisteredBrokersOrAnExplicitListAndTheChrootMustExist() {
        try (EmbeddedZooKeeper empty = EmbeddedZooKeeper.startTemporary()) {
            CommandRun none = topics("create", "orders", "--zookeeper", empty.connectString(),
                    "--partitions-per-broker", "1").assertOneLineError(1);
            assertTrue(none.err().contains("no broker is registered under /brokers/ids"), none::toString);
            topics("create", "orders", "--zookeeper", empty.connectString(), "--partitions-per-broker", "1",
                    "--brokers", "3").assertOk();

            CommandRun chroot = topics("list", "--zookeeper", empty.connectString() + "/missing")
                    .assertOneLineError(1);
            assertTrue(chroot.err().contains("the chroot /missing"), chroot::toString);
        }
    }

    @Test
    void verboseAddsTheStackTrace() {
        CommandRun run = topics("describe", "ghost", "--zookeeper", zk, "--verbose");
        assertEquals(1, run.exitCode());
        assertTrue(run.err().contains("\tat "), run::toString);
    }

    @Test
    void everyCommandAndOptionHasHelp() {
        CommandRun help = topics("create", "--help").assertOk();
        for (String option : new String[] {"--zookeeper", "--partitions-per-broker", "--brokers", "--add",
            "--verbose"}) {
            assertTrue(help.out().contains(option), option + " in " + help);
        }
    }
}
