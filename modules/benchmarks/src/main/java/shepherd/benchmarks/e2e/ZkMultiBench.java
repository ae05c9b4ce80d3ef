package shepherd.benchmarks.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import shepherd.zookeeper.EmbeddedZooKeeper;

/**
 * The floor under a rebalance's owners write: how long the embedded ZooKeeper server (the one {@link RebalanceBench}
 * uses, writing its transaction log with fsync) takes to answer one multi shaped like the coordinator's — the epoch
 * check, then one {@code setData} of an owner-sized value per partition plus the group node — sent one at a time
 * from a plain client in a JVM doing nothing else. Also one {@code exists}, what each existence probe cost; and what
 * loading a group's nodes costs: {@code N} {@code getData} requests pipelined (all sent, then all awaited: how a new
 * coordinator read the tree before) against one read-only multi of the same {@code N} reads (how it reads now, in
 * batches of 256).
 *
 * <pre>
 * java -cp modules/benchmarks/target/benchmarks.jar shepherd.benchmarks.e2e.ZkMultiBench [--reps 50]
 *      [--out modules/benchmarks/results]
 * </pre>
 */
public final class ZkMultiBench {
    private static final int[] PARTITIONS = {0, 64, 1_024};
    /** About what {@code {"version":1,"stream":"consumer-12-0","generation":42}} takes. */
    private static final int VALUE_BYTES = 60;

    private ZkMultiBench() {}

    /** The command line, parsed. */
    record Options(int reps, Path out, String commandLine) {
        static Options parse(Report.Args args) {
            return new Options(args.integer("reps", 50), args.out(), args.commandLine(ZkMultiBench.class.getName()));
        }
    }

    public static void main(String[] argv) throws Exception {
        System.setProperty("shepherd.log.level", System.getProperty("shepherd.log.level", "WARN"));
        Options o = Report.options(ZkMultiBench.class, argv, Options::parse);
        int reps = o.reps();
        Report report = new Report("zkmulti", o.commandLine());
        report.line("Setup: embedded ZooKeeper (as RebalanceBench: fsync of its transaction log on), one client"
                + " session, requests sent one at a time; " + reps + " repetitions after " + reps / 5
                + " warm-up ones.");
        report.line("");
        List<List<String>> rows = new ArrayList<>();
        try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(Files.createTempDirectory("shepherd-zkmulti-"), true,
                200)) {
            ZooKeeper zk = connect(server.connectString());
            zk.create("/epoch", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            zk.create("/g", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            byte[] value = new byte[VALUE_BYTES];
            for (int i = 0; i < PARTITIONS[PARTITIONS.length - 1]; i++) {
                zk.create("/g/" + i, value, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            }
            for (int partitions : PARTITIONS) {
                List<Op> ops = new ArrayList<>();
                ops.add(Op.check("/epoch", 0));
                ops.add(Op.setData("/g", value, -1));
                for (int i = 0; i < partitions; i++) {
                    ops.add(Op.setData("/g/" + i, value, -1));
                }
                List<Double> times = time(reps, () -> zk.multi(ops));
                rows.add(row("multi: check + " + (partitions + 1) + " setData", times));
            }
            rows.add(row("exists (one probe)", time(reps, () -> zk.exists("/g/0", false))));
            for (int nodes : new int[] {140, 256}) {
                // 140: a group of 4 members × 64 partitions (owners, offsets, registrations, parents).
                rows.add(row(nodes + " getData, pipelined", time(reps, () -> pipelinedReads(zk, nodes))));
                List<Op> reads = new ArrayList<>();
                for (int i = 0; i < nodes; i++) {
                    reads.add(Op.getData("/g/" + i));
                }
                rows.add(row(nodes + " getData in one read-only multi", time(reps, () -> zk.multi(reads))));
            }
            zk.close();
        }
        report.line("One request (or one batch of pipelined reads), sent and answered (ms):");
        report.line("");
        List<String> header = List.of("request", "min", "p50", "p99", "max", "n");
        report.table(header, rows);
        report.write(o.out());
        System.exit(0);
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void pipelinedReads(ZooKeeper zk, int nodes) throws InterruptedException {
        CountDownLatch answered = new CountDownLatch(nodes);
        for (int i = 0; i < nodes; i++) {
            zk.getData("/g/" + i, false, (rc, path, ctx, data, stat) -> answered.countDown(), null);
        }
        if (!answered.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(answered.getCount() + " reads unanswered after 30 s");
        }
    }

    private static List<Double> time(int reps, Call call) throws Exception {
        for (int i = 0; i < reps / 5; i++) {
            call.run();
        }
        List<Double> times = new ArrayList<>();
        for (int i = 0; i < reps; i++) {
            long t0 = System.nanoTime();
            call.run();
            times.add(Report.millis(System.nanoTime() - t0));
        }
        return times;
    }

    private static List<String> row(String name, List<Double> times) {
        List<String> row = new ArrayList<>();
        row.add(name);
        row.addAll(Report.summary(times));
        return row;
    }

    /** A session with {@code connectString}, once connected (30 s at most). */
    static ZooKeeper connect(String connectString) throws Exception {
        CountDownLatch up = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, 10_000, e -> {
            if (e.getState() == KeeperState.SyncConnected) {
                up.countDown();
            }
        });
        if (!up.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no session with " + connectString);
        }
        return zk;
    }
}
