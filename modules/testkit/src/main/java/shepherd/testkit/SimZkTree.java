package shepherd.testkit;

import java.util.Optional;
import shepherd.coordination.assign.StreamId;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;
import shepherd.zookeeper.ZnodeFormatException;

/**
 * What the simulation itself writes into and reads out of the tree, in the adapter's own layout and encoding
 * ({@link ZkPaths}, {@link ZnodeCodec}): the brokers run the real adapter, so the simulated ZooKeeper holds exactly
 * the bytes a real one would. The checker decodes what it judges from these values; an undecodable value is a broken
 * simulation, not garbage to skip, and fails loudly with its path.
 */
public final class SimZkTree {
    private SimZkTree() {}

    /** {@code /brokers/topics/[topic]/[broker]}'s value. */
    public static byte[] partitions(int count) {
        return ZnodeCodec.encodePartitions(count);
    }

    /** The partition count of a topic's broker node as {@link SimWorld#addPartitions} wrote it. */
    public static int partitionsOf(String path, Object data) {
        return decode(path, () -> ZnodeCodec.decodePartitions(path, (byte[]) data));
    }

    /** The owner in an owners node's value, if the node holds one. */
    public static Optional<StreamId> ownerOf(String path, Object data) {
        return data == null ? Optional.empty()
                : Optional.of(decode(path, () -> ZnodeCodec.decodeOwner(path, (byte[]) data)).owner());
    }

    /** The offset in an offsets node's value. */
    public static long offsetOf(String path, Object data) {
        return decode(path, () -> ZnodeCodec.decodeOffset(path, (byte[]) data));
    }

    /** Whose report set an offsets node's value: absent for an offset no consumer reported (a reset). */
    public static Optional<String> reporterOf(String path, Object data) {
        return decode(path, () -> ZnodeCodec.decodeOffsetReporter(path, (byte[]) data));
    }

    private interface Decoder<T> {
        T decode() throws ZnodeFormatException;
    }

    private static <T> T decode(String path, Decoder<T> decoder) {
        try {
            return decoder.decode();
        } catch (ZnodeFormatException | ClassCastException e) {
            throw new IllegalStateException("the simulation's tree holds an undecodable value at " + path, e);
        }
    }
}
