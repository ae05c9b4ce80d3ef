package shepherd.cli.admin;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import shepherd.coordination.assign.TopicPartition;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;
import shepherd.zookeeper.ZnodeFormatException;

/**
 * An operator's ZooKeeper handle: what {@code shepherd topics}, {@code shepherd offsets} and {@code shepherd produce}
 * read and write, and what {@code LocalCluster} does as the tools would (create the chroot, write topics, read owners
 * and offsets). Brokers never share it. Paths come from {@link ZkPaths}, values from {@link ZnodeCodec}
 * (docs/zookeeper-layout.md).
 *
 * <p>The handle is reopened when its session has died (a long pause of the JVM can expire it); the brokers'
 * sessions are theirs and are never touched here. A ZooKeeper failure becomes an {@link AdminException} naming the
 * operation and the path: its callers (a command, a test helper) can only report it.
 *
 * <p>Topic writes are one {@code multi} each, so a coordinator never sees half a topic, and each broker node is
 * written conditional on the version the plan read: two tools growing one topic at once cannot lose an update,
 * and the later one re-plans against what the earlier one wrote.
 */
public final class ZkAdmin implements AutoCloseable {
    /** Requested session timeout of the admin handle; the server clamps it to its 2 – 20 ticks. */
    public static final int SESSION_TIMEOUT_MS = 10_000;
    /** How long opening a handle waits for its first SyncConnected. */
    public static final long CONNECT_TIMEOUT_MS = 15_000;
    /** How often a {@link #multi} that raced with another writer (NodeExists/NoNode) is planned again. */
    private static final int MULTI_ATTEMPTS_MAX = 3;

    private final String connectString;
    private ZooKeeper handle; // guarded by this
    private boolean closed; // guarded by this

    private ZkAdmin(String connectString, ZooKeeper handle) {
        this.connectString = connectString;
        this.handle = handle;
    }

    /** Opens a session on {@code connectString} ({@code host:port[,...][/chroot]}), waiting for it to be up. */
    public static ZkAdmin open(String connectString) {
        return new ZkAdmin(connectString, connect(connectString));
    }

    /**
     * {@link #open}, then checks that the chroot of {@code connectString} exists: through a missing chroot every
     * read looks empty and every write fails with a puzzling NoNode, so the tools say it once, up front.
     */
    public static ZkAdmin openExisting(String connectString) {
        ZkAdmin admin = open(connectString);
        if (!admin.exists("/")) {
            admin.close();
            int slash = connectString.indexOf('/');
            throw new AdminException("the chroot " + connectString.substring(slash) + " of " + connectString
                    + " does not exist (a broker's ZooKeeper tree lives under it: check the connect string)");
        }
        return admin;
    }

    /** The connect string this handle was opened with. */
    public String connectString() {
        return connectString;
    }

    /**
     * Creates {@code chroot} and its ancestors through a handle on the server's root: ZooKeeper cannot create a
     * handle's own root through that handle (docs/zookeeper-layout.md).
     */
    public static void createChroot(String hosts, String chroot) {
        if (chroot.equals("/")) {
            return;
        }
        ZooKeeper root = connect(hosts);
        try {
            createPath(root, chroot);
        } finally {
            closeQuietly(root);
        }
    }

    /** Creates {@code path} and every missing ancestor as empty persistent nodes; existing nodes are kept. */
    public void createPath(String path) {
        createPath(handle(), path);
    }

    /**
     * Runs {@code plan} (which may read through this handle) and commits its ops as one {@code multi}; a plan that
     * raced with another writer (a node created, deleted or changed in between) is made and tried again, a bounded
     * number of times. An {@link AdminException} thrown by the plan (a refusal) passes through.
     */
    public void multi(String what, Supplier<List<Op>> plan) {
        for (int attempt = 1; ; attempt++) {
            try {
                handle().multi(plan.get());
                return;
            } catch (KeeperException.NodeExistsException | KeeperException.NoNodeException
                     | KeeperException.BadVersionException e) {
                if (attempt >= MULTI_ATTEMPTS_MAX) {
                    throw failed(what, e);
                }
            } catch (KeeperException e) {
                throw failed(what, e);
            } catch (InterruptedException e) {
                throw interrupted(what, e);
            }
        }
    }

    public boolean exists(String path) {
        try {
            return handle().exists(path, false) != null;
        } catch (KeeperException e) {
            throw failed("exists(" + path + ")", e);
        } catch (InterruptedException e) {
            throw interrupted("exists(" + path + ")", e);
        }
    }

    /** The node's data, or empty if it does not exist (also if it was deleted while we read). */
    public Optional<byte[]> data(String path) {
        return read("getData(" + path + ")", Optional.empty(),
                zk -> Optional.ofNullable(zk.getData(path, false, null)));
    }

    /** The node's children, or none if it does not exist. */
    public List<String> children(String path) {
        return read("getChildren(" + path + ")", List.of(), zk -> zk.getChildren(path, false));
    }

    /** The node's data and version, or empty if it does not exist. */
    public Optional<Node> node(String path) {
        return read("getData(" + path + ")", Optional.empty(), zk -> {
            Stat stat = new Stat();
            byte[] data = zk.getData(path, false, stat);
            return Optional.of(new Node(data == null ? new byte[0] : data, stat.getVersion()));
        });
    }

    /** One read whose answer for a missing node is {@code absent}; other failures become an AdminException. */
    private <T> T read(String what, T absent, ZkCall<T> call) {
        try {
            return call.on(handle());
        } catch (KeeperException.NoNodeException e) {
            return absent;
        } catch (KeeperException e) {
            throw failed(what, e);
        } catch (InterruptedException e) {
            throw interrupted(what, e);
        }
    }

    @FunctionalInterface
    private interface ZkCall<T> {
        T on(ZooKeeper zk) throws KeeperException, InterruptedException;
    }

    /** A node's data and the version it was read at. */
    public record Node(byte[] data, int version) {}

    /** {@code create} if {@code path} does not exist now, else an unconditional {@code setData}. */
    public Op upsert(String path, byte[] value) {
        return exists(path) ? Op.setData(path, value, -1)
                : Op.create(path, value, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    // ------------------------------------------------------------------ brokers and topics

    /** The ids of the brokers registered now ({@code /brokers/ids}), ascending; children that are no id skipped. */
    public List<Integer> brokerIds() {
        List<Integer> ids = new ArrayList<>();
        for (String child : children(ZkPaths.BROKER_IDS)) {
            try {
                ids.add(Integer.parseInt(child));
            } catch (NumberFormatException e) {
                // garbage: not a broker (the adapter skips it too)
            }
        }
        ids.sort(null);
        return List.copyOf(ids);
    }

    /** The topics ({@code /brokers/topics}), sorted by name. */
    public List<String> topics() {
        return children(ZkPaths.TOPICS).stream().sorted().toList();
    }

    /**
     * Partitions per broker of {@code topic} (broker id → count, ascending), or empty if the topic does not exist.
     * A broker child that is no number or whose value does not decode is skipped, as the coordinator skips it.
     */
    public Optional<SortedMap<Integer, Integer>> topicPartitions(String topic) {
        return readTopic(topic).map(nodes -> {
            SortedMap<Integer, Integer> counts = new TreeMap<>();
            nodes.forEach((id, n) -> counts.put(id, n.partitions()));
            return counts;
        });
    }

    /** How {@link #writeTopic} treats what is there already. */
    public enum TopicWrite {
        /** Create the topic or set the counts, up or down (LocalCluster, tests). */
        SET,
        /** Create the topic; refuse if it exists. */
        CREATE,
        /** Grow an existing topic; refuse if it does not exist or a broker's count would go down. */
        GROW
    }

    /**
     * Writes {@code /brokers/topics/[topic]/[brokerId]} = count for every entry of {@code counts} in one
     * {@code multi} (creating the topic node if missing); brokers not named keep their partitions.
     *
     * @return the counts before the write (empty map: the topic did not exist)
     * @throws AdminException if {@code mode} refuses what is there, naming the topic, broker and counts
     */
    public SortedMap<Integer, Integer> writeTopic(String topic, Map<Integer, Integer> counts, TopicWrite mode) {
        String topicPath = ZkPaths.topic(topic);
        counts.values().forEach(ZkAdmin::requirePartitionCount);
        createPath(ZkPaths.TOPICS);
        SortedMap<Integer, Integer> before = new TreeMap<>();
        multi("writing topic " + topic, () -> {
            Optional<SortedMap<Integer, TopicNode>> current = readTopic(topic);
            refuseTopicWrite(topic, counts, mode, current);
            before.clear();
            current.ifPresent(nodes -> nodes.forEach((id, n) -> before.put(id, n.partitions())));
            List<Op> ops = new ArrayList<>();
            if (current.isEmpty()) {
                ops.add(Op.create(topicPath, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            }
            new TreeMap<>(counts).forEach((id, n) -> {
                String path = ZkPaths.topicBroker(topic, id);
                TopicNode known = current.map(nodes -> nodes.get(id)).orElse(null);
                byte[] value = ZnodeCodec.encodePartitions(n);
                ops.add(known != null ? Op.setData(path, value, known.version())
                        : exists(path) ? Op.setData(path, value, -1) // garbage there: overwrite it
                        : Op.create(path, value, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            });
            return ops;
        });
        return before;
    }

    private static void refuseTopicWrite(String topic, Map<Integer, Integer> counts, TopicWrite mode,
                                         Optional<SortedMap<Integer, TopicNode>> current) {
        switch (mode) {
            // LocalCluster resizes freely: its tests shrink topics on purpose.
            case SET -> { }
            // An existing topic is grown with --add, so that a typo cannot silently resize someone else's topic.
            case CREATE -> current.ifPresent(nodes -> {
                throw new AdminException("topic '" + topic + "' already exists with " + describe(nodes)
                        + "; use --add to grow it");
            });
            // Partitions are never removed: their logs and committed offsets would be orphaned.
            case GROW -> {
                SortedMap<Integer, TopicNode> nodes = current.orElseThrow(() -> new AdminException("topic '" + topic
                        + "' does not exist; create it without --add"));
                new TreeMap<>(counts).forEach((id, n) -> {
                    TopicNode known = nodes.get(id);
                    if (known != null && known.partitions() > n) {
                        throw new AdminException("cannot shrink topic '" + topic + "' on broker " + id + " from "
                                + known.partitions() + " to " + n + " partitions: partitions are only ever added");
                    }
                });
            }
        }
    }

    private static String describe(SortedMap<Integer, TopicNode> nodes) {
        if (nodes.isEmpty()) {
            return "no partitions";
        }
        StringBuilder b = new StringBuilder();
        nodes.forEach((id, n) -> b.append(b.length() == 0 ? "" : ", ").append(n.partitions())
                .append(" on broker ").append(id));
        return "partitions " + b;
    }

    private record TopicNode(int partitions, int version) {}

    private Optional<SortedMap<Integer, TopicNode>> readTopic(String topic) {
        String topicPath = ZkPaths.topic(topic);
        if (!exists(topicPath)) {
            return Optional.empty();
        }
        SortedMap<Integer, TopicNode> nodes = new TreeMap<>();
        for (String child : children(topicPath)) {
            int id;
            try {
                id = Integer.parseInt(child);
            } catch (NumberFormatException e) {
                continue;
            }
            String path = ZkPaths.topicBroker(topic, id);
            Optional<Node> node = node(path);
            if (node.isEmpty()) {
                continue;
            }
            try {
                nodes.put(id, new TopicNode(ZnodeCodec.decodePartitions(path, node.get().data()),
                        node.get().version()));
            } catch (ZnodeFormatException e) {
                // garbage: skipped, as the coordinator skips it
            }
        }
        return Optional.of(nodes);
    }

    private static void requirePartitionCount(int partitions) {
        if (partitions < 0 || partitions > ZnodeCodec.PARTITIONS_PER_BROKER_MAX) {
            throw new AdminException("partitions per broker must be between 0 and "
                    + ZnodeCodec.PARTITIONS_PER_BROKER_MAX + ", got " + partitions);
        }
    }

    // ------------------------------------------------------------------ groups

    /** The consumer ids registered in {@code group} ({@code .../ids}), sorted. */
    public List<String> members(String group) {
        return children(ZkPaths.ids(group)).stream().sorted().toList();
    }

    /** The committed offset of a partition; empty if none is (or it does not decode). */
    public Optional<Long> offset(String group, TopicPartition partition) {
        String path = ZkPaths.offset(group, partition);
        return data(path).flatMap(data -> {
            try {
                return Optional.of(ZnodeCodec.decodeOffset(path, data));
            } catch (ZnodeFormatException e) {
                return Optional.empty();
            }
        });
    }

    /** Writes committed offsets of {@code group} in one {@code multi}, creating the parents as needed. */
    public void writeOffsets(String group, Map<TopicPartition, Long> offsets) {
        offsets.keySet().stream().map(TopicPartition::topic).distinct()
                .forEach(topic -> createPath(ZkPaths.offsetsOfTopic(group, topic)));
        multi("writing offsets of group " + group, () -> {
            List<Op> ops = new ArrayList<>();
            new TreeMap<>(offsets).forEach((tp, offset) ->
                    ops.add(upsert(ZkPaths.offset(group, tp), ZnodeCodec.encodeOffset(offset))));
            return ops;
        });
    }

    /** The live handle, reopened if its session was closed or expired. */
    private synchronized ZooKeeper handle() {
        if (closed) {
            throw new IllegalStateException("the admin ZooKeeper handle of " + connectString + " is closed");
        }
        if (!handle.getState().isAlive()) {
            closeQuietly(handle);
            handle = connect(connectString);
        }
        return handle;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeQuietly(handle);
    }

    private static void createPath(ZooKeeper zk, String path) {
        List<String> prefixes = new ArrayList<>();
        for (String p = path; !p.equals("/"); p = ZkPaths.parent(p)) {
            prefixes.add(0, p);
        }
        for (String p : prefixes) {
            try {
                zk.create(p, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } catch (KeeperException.NodeExistsException e) {
                // there already (a broker's adapter creates the fixed nodes at the start of its sessions)
            } catch (KeeperException e) {
                throw failed("create(" + p + ")", e);
            } catch (InterruptedException e) {
                throw interrupted("create(" + p + ")", e);
            }
        }
    }

    private static ZooKeeper connect(String connectString) {
        CountDownLatch up = new CountDownLatch(1);
        ZooKeeper zk;
        try {
            zk = new ZooKeeper(connectString, SESSION_TIMEOUT_MS, event -> {
                if (event.getState() == KeeperState.SyncConnected) {
                    up.countDown();
                }
            });
        } catch (IOException e) {
            throw new AdminException("cannot open a ZooKeeper handle on " + connectString + ": " + e, e);
        }
        try {
            if (!up.await(CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                closeQuietly(zk);
                throw new AdminException("no ZooKeeper session with " + connectString + " within "
                        + CONNECT_TIMEOUT_MS + " ms (is ZooKeeper running there?)");
            }
        } catch (InterruptedException e) {
            closeQuietly(zk);
            throw interrupted("connecting to " + connectString, e);
        }
        return zk;
    }

    private static void closeQuietly(ZooKeeper zk) {
        try {
            zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static AdminException failed(String what, KeeperException e) {
        return new AdminException(what + " failed: " + e.getMessage(), e);
    }

    private static AdminException interrupted(String what, InterruptedException e) {
        Thread.currentThread().interrupt();
        return new AdminException("interrupted during " + what, e);
    }
}
