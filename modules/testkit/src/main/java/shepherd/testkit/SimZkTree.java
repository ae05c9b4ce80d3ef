package shepherd.testkit;

import shepherd.coordination.Registration;
import shepherd.coordination.assign.StreamId;

/**
 * The simulation's ZooKeeper tree (DESIGN §4) with typed values in place of the broker's versioned JSON: the JSON
 * codec is the adapter's and is tested there; the simulation is about who writes what when.
 */
public final class SimZkTree {
    public static final String TOPICS = "/brokers/topics";
    public static final String GROUPS = "/consumers/groups";
    public static final String COORDINATOR = "/consumers/coordinator";
    public static final String EPOCH = "/consumers/epoch";

    /** {@code /consumers/epoch}: its data version is the epoch. */
    public record EpochData(int brokerId, boolean handover) {}

    /** {@code /consumers/groups/[g]}. */
    public record GroupData(int generation, String assignor) {}

    /** {@code .../owners/[topic]/[partition]}. */
    public record OwnerData(StreamId owner, int generation) {}

    /** {@code .../offsets/[topic]/[partition]}; {@code reportedBy} lets the checker judge owner-only writes. */
    public record OffsetData(long offset, String reportedBy) {}

    private SimZkTree() {}

    public static String topic(String topic) {
        return TOPICS + "/" + topic;
    }

    public static String group(String group) {
        return GROUPS + "/" + group;
    }

    public static String ids(String group) {
        return group(group) + "/ids";
    }

    public static String owners(String group) {
        return group(group) + "/owners";
    }

    public static String offsets(String group) {
        return group(group) + "/offsets";
    }

    /** Registration values are the coordinator's own record. */
    public static Registration registration(Object data) {
        return data instanceof Registration r ? r : null;
    }
}
