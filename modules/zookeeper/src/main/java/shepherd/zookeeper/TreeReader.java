package shepherd.zookeeper;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.zookeeper.data.Stat;
import shepherd.coordination.CoordinatorEvent;
import shepherd.coordination.GroupSnapshot;
import shepherd.coordination.Registration;
import shepherd.coordination.ZkRead;
import shepherd.coordination.assign.Assignors;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.zookeeper.ZnodeCodec.GroupValue;

/**
 * The coordinator's reads (ZkRead) and the broker list, each arming the watch of the listener it belongs to (DESIGN
 * §4: watches are one-shot, re-arming is part of re-reading). Garbage is skipped through the adapter, which logs and
 * counts it; the rest of the read goes on. Runs on the adapter's thread.
 */
final class TreeReader {
    private final ZooKeeperAdapter adapter;
    private final Consumer<CoordinatorEvent> out;
    private final boolean watch;
    private final boolean oneByOne;

    /** The coordinator's reader: answers go to the adapter's sink, and every read arms its watches. */
    TreeReader(ZooKeeperAdapter adapter) {
        this(adapter, adapter::emit, true, false);
    }

    /**
     * @param out      where the answers (and {@link CoordinatorEvent.ZkReadFailed}) go
     * @param watch    false: arm no watch (every read then leaves in read-only multis, unless {@code oneByOne}),
     *                 for reads whose answer nobody keeps current
     * @param oneByOne every node in a request of its own, as watched reads are sent: the warm-up's rehearsal of
     *                 that path ({@link ZooKeeperAdapter#rehearseTakeover})
     */
    TreeReader(ZooKeeperAdapter adapter, Consumer<CoordinatorEvent> out, boolean watch, boolean oneByOne) {
        this.adapter = adapter;
        this.out = out;
        this.watch = watch;
        this.oneByOne = oneByOne;
    }

    private ReadJoin join(ZkSession s, ZkRead read, Runnable done) {
        return new ReadJoin(adapter, s, read, reason -> out.accept(new CoordinatorEvent.ZkReadFailed(read, reason)),
                done, !oneByOne);
    }

    void read(ZkSession s, ZkRead read) {
        if (read instanceof ZkRead.Topics) {
            Map<String, List<PartitionId>> topics = new TreeMap<>();
            ReadJoin[] j = new ReadJoin[1];
            j[0] = join(s, read,
                    () -> out.accept(new CoordinatorEvent.TopicsRead(sorted(topics), j[0].sentAtMs)));
            j[0].children(ZkPaths.TOPICS, watch, children -> {
                for (String topic : children) {
                    List<PartitionId> partitions = new ArrayList<>();
                    topics.put(topic, partitions);
                    readTopicInto(j[0], topic, partitions);
                }
            });
        } else if (read instanceof ZkRead.Topic t) {
            List<PartitionId> partitions = new ArrayList<>();
            ReadJoin[] j = new ReadJoin[1];
            j[0] = join(s, read, () -> {
                partitions.sort(Comparator.naturalOrder());
                out.accept(new CoordinatorEvent.TopicRead(t.topic(), partitions, j[0].sentAtMs));
            });
            readTopicInto(j[0], t.topic(), partitions);
        } else if (read instanceof ZkRead.Groups) {
            List<String> groups = new ArrayList<>();
            ReadJoin[] j = new ReadJoin[1];
            j[0] = join(s, read,
                    () -> out.accept(new CoordinatorEvent.GroupsRead(groups, j[0].sentAtMs)));
            j[0].children(ZkPaths.GROUPS, watch, children -> groups.addAll(children.stream().sorted().toList()));
        } else if (read instanceof ZkRead.Group g) {
            readGroup(s, g);
        } else if (read instanceof ZkRead.Members m) {
            List<String> ids = new ArrayList<>();
            ReadJoin[] j = new ReadJoin[1];
            j[0] = join(s, read, () -> out.accept(new CoordinatorEvent.MembersRead(m.group(),
                    ids.stream().sorted().toList(), j[0].sentAtMs)));
            j[0].children(ZkPaths.ids(m.group()), watch, ids::addAll);
        }
    }

    private static Map<String, List<PartitionId>> sorted(Map<String, List<PartitionId>> topics) {
        topics.values().forEach(list -> list.sort(Comparator.naturalOrder()));
        return topics;
    }

    /** A topic's broker nodes: children watched (brokers added) and each node's data watched (count changed). */
    private void readTopicInto(ReadJoin j, String topic, List<PartitionId> partitions) {
        String topicPath = ZkPaths.topic(topic);
        j.children(topicPath, watch, brokers -> {
            for (String broker : brokers) {
                String path = topicPath + "/" + broker;
                j.data(path, watch, (data, stat) -> {
                    int brokerId = brokerIdOf(broker);
                    if (brokerId < 0) {
                        adapter.garbage(new ZnodeFormatException(path, "not a broker id"), stat.getMzxid());
                        return;
                    }
                    adapter.decodeOrSkip(path, stat, () -> ZnodeCodec.decodePartitions(path, data)).ifPresent(n -> {
                        for (int i = 0; i < n; i++) {
                            partitions.add(new PartitionId(brokerId, i));
                        }
                    });
                });
            }
        });
    }

    static int brokerIdOf(String name) {
        try {
            int id = Integer.parseInt(name);
            return id >= 0 && name.equals(Integer.toString(id)) ? id : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private void readGroup(ZkSession s, ZkRead.Group read) {
        String group = read.group();
        GroupValue[] value = {new GroupValue(0, Assignors.DEFAULT_NAME)};
        Map<String, Registration> registrations = new TreeMap<>();
        Map<TopicPartition, StreamId> owners = new TreeMap<>();
        Map<TopicPartition, Long> offsets = new TreeMap<>();
        ReadJoin[] jj = new ReadJoin[1];
        jj[0] = join(s, read, () -> out.accept(new CoordinatorEvent.GroupRead(group,
                GroupSnapshot.of(value[0].generation(), value[0].assignor(), registrations, owners, offsets),
                jj[0].sentAtMs)));
        ReadJoin j = jj[0];
        String groupPath = ZkPaths.group(group);
        // An empty group node is one created only as a parent (of an offset, say): no value yet, not garbage.
        j.data(groupPath, false, (data, stat) -> {
            if (data != null && data.length > 0) {
                adapter.decodeOrSkip(groupPath, stat, () -> ZnodeCodec.decodeGroup(groupPath, data))
                        .ifPresent(v -> value[0] = v);
            }
        });
        String ids = ZkPaths.ids(group);
        j.children(ids, watch, children -> {
            for (String id : children) {
                String path = ids + "/" + id;
                j.data(path, false, (data, stat) ->
                        adapter.decodeOrSkip(path, stat, () -> ZnodeCodec.decodeRegistration(path, data))
                                .ifPresent(r -> registrations.put(id, r)));
            }
        });
        readPartitionMap(j, ZkPaths.owners(group), (path, data, stat) ->
                adapter.decodeOrSkip(path, stat, () -> ZnodeCodec.decodeOwner(path, data)).map(o -> o.owner()),
                owners);
        readPartitionMap(j, ZkPaths.offsets(group), (path, data, stat) ->
                adapter.decodeOrSkip(path, stat, () -> ZnodeCodec.decodeOffset(path, data)), offsets);
    }

    private interface PartitionDecoder<T> {
        Optional<T> decode(String path, byte[] data, Stat stat);
    }

    private <T> void readPartitionMap(ReadJoin j, String root, PartitionDecoder<T> decoder,
            Map<TopicPartition, T> into) {
        j.children(root, false, topics -> {
            for (String topic : topics) {
                j.children(root + "/" + topic, false, partitions -> {
                    for (String partition : partitions) {
                        String path = root + "/" + topic + "/" + partition;
                        j.data(path, false, (data, stat) -> {
                            TopicPartition tp;
                            try {
                                tp = TopicPartition.of(topic, partition);
                            } catch (RuntimeException e) {
                                adapter.garbage(new ZnodeFormatException(path, "not a partition id: "
                                        + e.getMessage()), stat.getMzxid());
                                return;
                            }
                            decoder.decode(path, data, stat).ifPresent(v -> into.put(tp, v));
                        });
                    }
                });
            }
        });
    }
}
