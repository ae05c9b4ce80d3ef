package shepherd.benchmarks.e2e;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;
import shepherd.zookeeper.ZooKeeperAdapter;

/**
 * What a ZooKeeper server keeps of Shepherd's owners writes (docs/operations.md, "ZooKeeper's memory"): every server
 * holds its last 500 write transactions in memory, so its heap needs room for 500 of the largest. For each group
 * size, a fresh server in a JVM of its own ({@link ChildZooKeeper}, on the JVM's defaults) gets the group's owner
 * nodes, then {@code --writes} multis of owner {@code setData}s shaped as the coordinator's (its paths, its values),
 * each as large as the broker's planner lets one multi be ({@code multiBytesMax}, 900 KiB) or the whole group if
 * smaller; the server's live heap (after a full collection) is read before and after the writes. With more than 500
 * writes the log is full, so the difference is what 500 of them hold.
 *
 * <pre>
 * java -cp modules/benchmarks/target/benchmarks.jar shepherd.benchmarks.e2e.ZkRetainedBench [--partitions 64,1024,16384]
 *      [--writes 600] [--out modules/benchmarks/results]
 * </pre>
 */
public final class ZkRetainedBench {
    /** ZooKeeper's {@code zookeeper.commitLogCount}: its default and, in 3.9, its least. */
    static final int COMMITTED_LOG = 500;
    /** What the broker's planner adds to an op's path and value when it cuts a write into multis (WritePlanner). */
    static final int PLANNER_OP_OVERHEAD_BYTES = 64;

    private ZkRetainedBench() {}

    /** The command line, parsed. */
    record Options(List<Integer> partitions, int writes, Path out, String commandLine) {
        Options {
            if (writes <= COMMITTED_LOG) {
                throw new IllegalArgumentException("--writes must be more than " + COMMITTED_LOG
                        + " (ZooKeeper's log of recent transactions must be full), got " + writes);
            }
        }

        static Options parse(Report.Args args) {
            return new Options(args.integers("partitions", "64,1024,16384"), args.integer("writes", 600), args.out(),
                    args.commandLine(ZkRetainedBench.class.getName()));
        }
    }

    public static void main(String[] argv) throws Exception {
        System.setProperty("shepherd.log.level", System.getProperty("shepherd.log.level", "WARN"));
        Options o = Report.options(ZkRetainedBench.class, argv, Options::parse);
        Report report = new Report("zkretained", o.commandLine());
        int multiBytesMax = ZooKeeperAdapter.Config.of("unused", 1, 0).multiBytesMax();
        List<List<String>> rows = new ArrayList<>();
        String collector = "?";
        for (int partitions : o.partitions()) {
            try (ChildZooKeeper child = ChildZooKeeper.start(2_000, true, List.of())) {
                collector = child.collector();
                rows.add(measure(child, partitions, o.writes(), multiBytesMax));
            }
        }
        report.line("Setup: for each group size a fresh ZooKeeper server (the embedded one) in a JVM of its own on"
                + " the JVM's default options (collector: " + collector + "), one client; the group's owner nodes"
                + " created, then " + o.writes() + " multis of owner setData ops, each as large as the broker cuts"
                + " one (" + multiBytesMax + " bytes as its planner counts them: path + value + "
                + PLANNER_OP_OVERHEAD_BYTES + " per op) or the whole group; live heap = heap in use after a full"
                + " collection, before and after the multis.");
        report.line("");
        report.line("What the server keeps of its last " + COMMITTED_LOG + " owners multis:");
        report.line("");
        report.table(List.of("partitions in the group", "ops per multi", "bytes per multi (planner's count)",
                "multis written", "live heap before (MB)", "after (MB)", "kept by " + COMMITTED_LOG + " multis (MB)",
                "bytes per op kept", "per planner byte"), rows);
        report.write(o.out());
        System.exit(0);
    }

    private static List<String> measure(ChildZooKeeper child, int partitions, int writes, int multiBytesMax)
            throws Exception {
        ZooKeeper zk = ZkMultiBench.connect(child.connectString());
        try {
            String group = "g" + partitions;
            String topic = "t" + partitions;
            List<String> paths = new ArrayList<>(partitions);
            for (int i = 0; i < partitions; i++) {
                paths.add(ZkPaths.owner(group, new TopicPartition(topic, new PartitionId(1, i))));
            }
            createParents(zk, ZkPaths.ownersOfTopic(group, topic));
            List<Op> creates = new ArrayList<>();
            for (String path : paths) {
                creates.add(Op.create(path, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
                if (creates.size() == 1_000) {
                    zk.multi(creates);
                    creates.clear();
                }
            }
            if (!creates.isEmpty()) {
                zk.multi(creates);
            }
            long before = child.liveHeapBytes();
            int next = 0;
            int opsPerMulti = 0;
            long bytesPerMulti = 0;
            for (int w = 0; w < writes; w++) {
                List<Op> ops = new ArrayList<>();
                long bytes = 0;
                while (ops.size() < partitions) {
                    String path = paths.get(next % partitions);
                    byte[] value = ZnodeCodec.encodeOwner(new ZnodeCodec.OwnerValue(
                            new StreamId("member-" + (w % 64), 0), w + 1));
                    long size = PLANNER_OP_OVERHEAD_BYTES + path.getBytes(StandardCharsets.UTF_8).length
                            + value.length;
                    if (!ops.isEmpty() && bytes + size > multiBytesMax) {
                        break;
                    }
                    ops.add(Op.setData(path, value, -1));
                    bytes += size;
                    next++;
                }
                zk.multi(ops);
                opsPerMulti = ops.size();
                bytesPerMulti = bytes;
            }
            long after = child.liveHeapBytes();
            long kept = after - before;
            long opsKept = (long) COMMITTED_LOG * opsPerMulti;
            return List.of(Integer.toString(partitions), Integer.toString(opsPerMulti), Long.toString(bytesPerMulti),
                    Integer.toString(writes), mb(before), mb(after), mb(kept), Long.toString(kept / opsKept),
                    String.format(Locale.ROOT, "%.1f", kept / (double) (COMMITTED_LOG * bytesPerMulti)));
        } finally {
            zk.close();
        }
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / 1e6);
    }

    private static void createParents(ZooKeeper zk, String path) throws Exception {
        StringBuilder p = new StringBuilder();
        for (String part : path.substring(1).split("/")) {
            p.append('/').append(part);
            if (zk.exists(p.toString(), false) == null) {
                zk.create(p.toString(), new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            }
        }
    }
}
