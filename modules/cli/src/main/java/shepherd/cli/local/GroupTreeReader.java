package shepherd.cli.local;

import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.cli.admin.ZkAdmin;
import shepherd.coordination.assign.InvalidIdException;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;
import shepherd.zookeeper.ZnodeFormatException;

/**
 * Reads a group's committed offsets and owners from the tree as the coordinator wrote them, topic → partition →
 * value, sorted by topic and (broker id, n). The tree is read node by node while the coordinator may write it, so
 * a node deleted meanwhile is simply absent; garbage (a child that is no partition id, a value that does not
 * decode) is skipped and logged at DEBUG.
 */
final class GroupTreeReader {
    /** Under the cluster's name: these are the cluster's reads to whoever configures the logs. */
    private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);

    private final ZkAdmin admin;

    GroupTreeReader(ZkAdmin admin) {
        this.admin = admin;
    }

    Map<String, Map<String, Long>> committedOffsets(String group) {
        return readPartitionTree(ZkPaths.offsets(group), topic -> ZkPaths.offsetsOfTopic(group, topic),
                tp -> ZkPaths.offset(group, tp), ZnodeCodec::decodeOffset);
    }

    Map<String, Map<String, StreamId>> owners(String group) {
        return readPartitionTree(ZkPaths.owners(group), topic -> ZkPaths.ownersOfTopic(group, topic),
                tp -> ZkPaths.owner(group, tp), (path, data) -> ZnodeCodec.decodeOwner(path, data).owner());
    }

    /** The same tree with {@code f} applied to every value. */
    static <A, B> Map<String, Map<String, B>> mapValues(Map<String, Map<String, A>> tree, Function<A, B> f) {
        SortedMap<String, Map<String, B>> result = new TreeMap<>();
        tree.forEach((topic, partitions) -> {
            SortedMap<String, B> mapped = new TreeMap<>(Comparator.comparing(PartitionId::parse));
            partitions.forEach((p, v) -> mapped.put(p, f.apply(v)));
            result.put(topic, Collections.unmodifiableSortedMap(mapped));
        });
        return Collections.unmodifiableSortedMap(result);
    }

    @FunctionalInterface
    private interface Decoder<V> {
        V decode(String path, byte[] data) throws ZnodeFormatException;
    }

    /** Reads {@code base/[topic]/[partition]} nodes. */
    private <V> Map<String, Map<String, V>> readPartitionTree(String base, Function<String, String> topicPath,
                                                             Function<TopicPartition, String> partitionPath,
                                                             Decoder<V> decoder) {
        SortedMap<String, Map<String, V>> result = new TreeMap<>();
        for (String topic : admin.children(base)) {
            SortedMap<String, V> partitions = new TreeMap<>(Comparator.comparing(PartitionId::parse));
            for (String child : admin.children(topicPath.apply(topic))) {
                Optional<PartitionId> id = partitionId(child);
                if (id.isEmpty()) {
                    LOG.debug("skipping {}/{}/{}: not a partition id", base, topic, child);
                    continue;
                }
                String path = partitionPath.apply(new TopicPartition(topic, id.get()));
                admin.data(path).flatMap(data -> decode(decoder, path, data))
                        .ifPresent(value -> partitions.put(child, value));
            }
            if (!partitions.isEmpty()) {
                result.put(topic, Collections.unmodifiableSortedMap(partitions));
            }
        }
        return Collections.unmodifiableSortedMap(result);
    }

    private static Optional<PartitionId> partitionId(String child) {
        try {
            return Optional.of(PartitionId.parse(child));
        } catch (InvalidIdException e) {
            return Optional.empty();
        }
    }

    private static <V> Optional<V> decode(Decoder<V> decoder, String path, byte[] data) {
        try {
            return Optional.of(decoder.decode(path, data));
        } catch (ZnodeFormatException e) {
            LOG.debug("skipping {}", e.getMessage());
            return Optional.empty();
        }
    }
}
