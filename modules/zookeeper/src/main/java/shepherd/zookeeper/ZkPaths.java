package shepherd.zookeeper;

import shepherd.coordination.assign.TopicPartition;

/**
 * Every path of Shepherd's ZooKeeper tree (DESIGN §4), built in one place so that the layout can be read, and
 * changed, here alone. Paths are absolute within the client's root: a chroot ({@code host:port/shepherd}) is
 * ZooKeeper's own business, applied by the connect string ({@link #connectString}), so no code here ever sees it.
 *
 * <p>Names that become one path segment (topics, groups, consumer ids) are checked: a {@code '/'} inside one would
 * silently address another node.
 */
public final class ZkPaths {
    public static final String BROKERS = "/brokers";
    public static final String BROKER_IDS = "/brokers/ids";
    public static final String TOPICS = "/brokers/topics";
    public static final String CONSUMERS = "/consumers";
    public static final String COORDINATOR = "/consumers/coordinator";
    public static final String EPOCH = "/consumers/epoch";
    public static final String GROUPS = "/consumers/groups";

    private ZkPaths() {}

    /** {@code hosts} plus ZooKeeper's chroot suffix; {@code chroot} null or empty means the server's root. */
    public static String connectString(String hosts, String chroot) {
        if (chroot == null || chroot.isEmpty() || chroot.equals("/")) {
            return hosts;
        }
        if (!chroot.startsWith("/") || chroot.endsWith("/")) {
            throw new IllegalArgumentException("chroot must start and not end with '/', was '" + chroot + "'");
        }
        return hosts + chroot;
    }

    public static String broker(int brokerId) {
        return BROKER_IDS + "/" + brokerId;
    }

    public static String topic(String topic) {
        return TOPICS + "/" + segment(topic, "topic");
    }

    /** {@code /brokers/topics/[topic]/[brokerId]}: how many partitions the broker holds. */
    public static String topicBroker(String topic, int brokerId) {
        return topic(topic) + "/" + brokerId;
    }

    public static String group(String group) {
        return GROUPS + "/" + segment(group, "group");
    }

    public static String ids(String group) {
        return group(group) + "/ids";
    }

    public static String registration(String group, String consumerId) {
        return ids(group) + "/" + segment(consumerId, "consumer id");
    }

    public static String owners(String group) {
        return group(group) + "/owners";
    }

    public static String ownersOfTopic(String group, String topic) {
        return owners(group) + "/" + segment(topic, "topic");
    }

    public static String owner(String group, TopicPartition partition) {
        return ownersOfTopic(group, partition.topic()) + "/" + partition.partition();
    }

    public static String offsets(String group) {
        return group(group) + "/offsets";
    }

    public static String offsetsOfTopic(String group, String topic) {
        return offsets(group) + "/" + segment(topic, "topic");
    }

    public static String offset(String group, TopicPartition partition) {
        return offsetsOfTopic(group, partition.topic()) + "/" + partition.partition();
    }

    /** The parent of an absolute path; {@code "/"} for a top-level node. */
    public static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }

    /** The last segment of an absolute path. */
    public static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** The topic of {@code /brokers/topics/[topic]} or a node below it; null for any other path. */
    static String topicOf(String path) {
        if (!path.startsWith(TOPICS + "/")) {
            return null;
        }
        String rest = path.substring(TOPICS.length() + 1);
        int slash = rest.indexOf('/');
        return slash < 0 ? rest : rest.substring(0, slash);
    }

    /** The group of {@code /consumers/groups/[g]/ids}; null for any other path. */
    static String groupOfIds(String path) {
        if (!path.startsWith(GROUPS + "/") || !path.endsWith("/ids")) {
            return null;
        }
        String group = path.substring(GROUPS.length() + 1, path.length() - "/ids".length());
        return group.isEmpty() || group.contains("/") ? null : group;
    }

    private static String segment(String name, String what) {
        if (name == null || name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")
                || name.indexOf('\u0000') >= 0) {
            throw new IllegalArgumentException(what + " '" + name + "' cannot be a ZooKeeper path segment");
        }
        return name;
    }
}
