package shepherd.zookeeper;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import shepherd.coordination.Registration;
import shepherd.coordination.assign.StreamId;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.Subscription;
import shepherd.protocol.TopicStreams;
import shepherd.protocol.WildcardKind;
import shepherd.protocol.WildcardSubscription;

/**
 * The one codec of every znode value (DESIGN §4): versioned JSON, {@code {"version":1,...}}, field names in
 * snake_case as the seed wrote them. Decoding checks every field's presence, type and range and throws only
 * {@link ZnodeFormatException} naming the path; unknown extra fields are ignored so that a later minor addition
 * does not need a version bump, while any other {@code version} is refused (an older broker must not misread a
 * newer layout). The layout with examples is in {@code docs/zookeeper-layout.md}.
 */
public final class ZnodeCodec {
    public static final int VERSION = 1;
    /** More partitions than this on one broker is garbage, not a topic (bounds the list a read builds). */
    public static final int PARTITIONS_PER_BROKER_MAX = 100_000;

    private ZnodeCodec() {}

    /** {@code /consumers/epoch}'s data; its data <em>version</em> is the epoch. */
    public record EpochValue(int brokerId, boolean handover) {}

    /** {@code /consumers/groups/[g]}. */
    public record GroupValue(int generation, String assignor) {}

    /** {@code /consumers/groups/[g]/owners/[topic]/[partition]}. */
    public record OwnerValue(StreamId owner, int generation) {}

    // ------------------------------------------------------------------ encoding

    public static byte[] encodeBroker(BrokerInfo broker) {
        Map<String, Object> m = versioned();
        m.put("host", broker.host());
        m.put("port", broker.port());
        m.put("creator_id", broker.creatorId());
        return Json.write(m);
    }

    public static byte[] encodePartitions(int partitions) {
        Map<String, Object> m = versioned();
        m.put("partitions", partitions);
        return Json.write(m);
    }

    /** {@code /consumers/coordinator}: the elected broker's id. */
    public static byte[] encodeCoordinator(int brokerId) {
        Map<String, Object> m = versioned();
        m.put("broker_id", brokerId);
        return Json.write(m);
    }

    public static byte[] encodeEpoch(EpochValue epoch) {
        Map<String, Object> m = versioned();
        m.put("broker_id", epoch.brokerId());
        m.put("handover", epoch.handover());
        return Json.write(m);
    }

    public static byte[] encodeGroup(GroupValue group) {
        Map<String, Object> m = versioned();
        m.put("generation", group.generation());
        m.put("assignor", group.assignor());
        return Json.write(m);
    }

    public static byte[] encodeRegistration(Registration r) {
        Map<String, Object> m = versioned();
        m.put("subscription", subscription(r.subscription()));
        m.put("auto_commit", r.autoCommit());
        m.put("auto_offset_reset", r.autoOffsetReset().wireName());
        m.put("ping_interval_ms", r.pingIntervalMs());
        m.put("max_ping_retries", r.maxPingRetries());
        return Json.write(m);
    }

    public static byte[] encodeOwner(OwnerValue owner) {
        Map<String, Object> m = versioned();
        m.put("stream", owner.owner().toString());
        m.put("generation", owner.generation());
        return Json.write(m);
    }

    /** An offset no consumer reported: one set by {@code shepherd offsets reset}. */
    public static byte[] encodeOffset(long offset) {
        Map<String, Object> m = versioned();
        m.put("offset", offset);
        return Json.write(m);
    }

    /**
     * An offset as the coordinator writes it: with the consumer whose OffsetCommit or Stop answer reported it, so
     * the tree itself says who moved an offset (an operator's audit; a checker's evidence of owner-only writes).
     */
    public static byte[] encodeOffset(long offset, String reportedBy) {
        Map<String, Object> m = versioned();
        m.put("offset", offset);
        m.put("reported_by", reportedBy);
        return Json.write(m);
    }

    private static Map<String, Object> versioned() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("version", VERSION);
        return m;
    }

    private static Map<String, Object> subscription(Subscription s) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (s instanceof StaticSubscription st) {
            m.put("kind", "static");
            List<Object> topics = new ArrayList<>();
            for (TopicStreams t : st.topics()) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("topic", t.topic());
                e.put("streams", t.streams());
                topics.add(e);
            }
            m.put("topics", topics);
        } else if (s instanceof WildcardSubscription w) {
            m.put("kind", w.kind() == WildcardKind.WHITELIST ? "whitelist" : "blacklist");
            m.put("pattern", w.pattern());
            m.put("streams", w.streams());
        }
        return m;
    }

    // ------------------------------------------------------------------ decoding

    /** {@code /brokers/ids/[id]}; the id comes from the path. */
    public static BrokerInfo decodeBroker(String path, int brokerId, byte[] data) throws ZnodeFormatException {
        Fields f = Fields.of(path, data);
        return new BrokerInfo(brokerId, f.string("host"), f.intIn("port", 0, 65_535), f.string("creator_id"));
    }

    public static int decodePartitions(String path, byte[] data) throws ZnodeFormatException {
        return Fields.of(path, data).intIn("partitions", 0, PARTITIONS_PER_BROKER_MAX);
    }

    public static int decodeCoordinator(String path, byte[] data) throws ZnodeFormatException {
        return Fields.of(path, data).intIn("broker_id", 0, Integer.MAX_VALUE);
    }

    public static EpochValue decodeEpoch(String path, byte[] data) throws ZnodeFormatException {
        Fields f = Fields.of(path, data);
        // -1: the node as first created, before any broker won.
        return new EpochValue(f.intIn("broker_id", -1, Integer.MAX_VALUE), f.bool("handover"));
    }

    public static GroupValue decodeGroup(String path, byte[] data) throws ZnodeFormatException {
        Fields f = Fields.of(path, data);
        return new GroupValue(f.intIn("generation", 0, Integer.MAX_VALUE), f.string("assignor"));
    }

    public static Registration decodeRegistration(String path, byte[] data) throws ZnodeFormatException {
        Fields f = Fields.of(path, data);
        Subscription subscription = decodeSubscription(f.object("subscription"));
        String reset = f.string("auto_offset_reset");
        OffsetReset offsetReset = OffsetReset.forWireName(reset)
                .orElseThrow(() -> f.error("auto_offset_reset: unknown policy \"" + reset + "\""));
        return f.build(() -> new Registration(subscription, f.bool("auto_commit"), offsetReset,
                f.intIn("ping_interval_ms", 1, Integer.MAX_VALUE),
                (short) f.intIn("max_ping_retries", 0, Short.MAX_VALUE)));
    }

    public static OwnerValue decodeOwner(String path, byte[] data) throws ZnodeFormatException {
        Fields f = Fields.of(path, data);
        String stream = f.string("stream");
        StreamId owner = f.build(() -> StreamId.parse(stream));
        return new OwnerValue(owner, f.intIn("generation", 0, Integer.MAX_VALUE));
    }

    public static long decodeOffset(String path, byte[] data) throws ZnodeFormatException {
        return Fields.of(path, data).longIn("offset", 0, Long.MAX_VALUE);
    }

    /** The optional {@code reported_by}: empty for an offset no consumer reported. */
    public static Optional<String> decodeOffsetReporter(String path, byte[] data) throws ZnodeFormatException {
        Fields f = Fields.of(path, data);
        return f.has("reported_by") ? Optional.of(f.string("reported_by")) : Optional.empty();
    }

    private static Subscription decodeSubscription(Fields s) throws ZnodeFormatException {
        String kind = s.string("kind");
        switch (kind) {
            case "static" -> {
                List<TopicStreams> topics = new ArrayList<>();
                for (Fields t : s.objects("topics")) {
                    topics.add(new TopicStreams(t.string("topic"), t.intIn("streams", 1, Integer.MAX_VALUE)));
                }
                return new StaticSubscription(topics);
            }
            case "whitelist", "blacklist" -> {
                WildcardKind wk = kind.equals("whitelist") ? WildcardKind.WHITELIST : WildcardKind.BLACKLIST;
                return new WildcardSubscription(wk, s.string("pattern"), s.intIn("streams", 1, Integer.MAX_VALUE));
            }
            default -> throw s.error("subscription.kind: unknown kind \"" + kind + "\"");
        }
    }

    /** Typed access to one JSON object's fields, every failure a {@link ZnodeFormatException} for {@code path}. */
    private static final class Fields {
        private final String path;
        private final String prefix;
        private final Map<?, ?> map;

        private Fields(String path, String prefix, Map<?, ?> map) {
            this.path = path;
            this.prefix = prefix;
            this.map = map;
        }

        static Fields of(String path, byte[] data) throws ZnodeFormatException {
            Object value;
            try {
                value = Json.parse(data);
            } catch (Json.Malformed e) {
                throw new ZnodeFormatException(path, "not JSON: " + e.getMessage());
            }
            if (!(value instanceof Map<?, ?> map)) {
                throw new ZnodeFormatException(path, "not a JSON object");
            }
            Fields f = new Fields(path, "", map);
            long version = f.longIn("version", Long.MIN_VALUE, Long.MAX_VALUE);
            if (version != VERSION) {
                throw f.error("unknown version " + version + " (this broker reads version " + VERSION + ")");
            }
            return f;
        }

        ZnodeFormatException error(String reason) {
            return new ZnodeFormatException(path, reason);
        }

        boolean has(String name) {
            return map.get(name) != null;
        }

        private Object field(String name) throws ZnodeFormatException {
            Object v = map.get(name);
            if (v == null) {
                throw error(prefix + name + ": missing");
            }
            return v;
        }

        String string(String name) throws ZnodeFormatException {
            if (field(name) instanceof String s) {
                return s;
            }
            throw error(prefix + name + ": not a string");
        }

        boolean bool(String name) throws ZnodeFormatException {
            if (field(name) instanceof Boolean b) {
                return b;
            }
            throw error(prefix + name + ": not a boolean");
        }

        long longIn(String name, long min, long max) throws ZnodeFormatException {
            if (!(field(name) instanceof Long v)) {
                throw error(prefix + name + ": not an integer");
            }
            if (v < min || v > max) {
                throw error(prefix + name + ": " + v + " outside [" + min + ", " + max + "]");
            }
            return v;
        }

        int intIn(String name, int min, int max) throws ZnodeFormatException {
            return (int) longIn(name, min, max);
        }

        Fields object(String name) throws ZnodeFormatException {
            if (field(name) instanceof Map<?, ?> m) {
                return new Fields(path, prefix + name + ".", m);
            }
            throw error(prefix + name + ": not an object");
        }

        List<Fields> objects(String name) throws ZnodeFormatException {
            if (!(field(name) instanceof List<?> list)) {
                throw error(prefix + name + ": not an array");
            }
            List<Fields> out = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                if (!(list.get(i) instanceof Map<?, ?> m)) {
                    throw error(prefix + name + "[" + i + "]: not an object");
                }
                out.add(new Fields(path, prefix + name + "[" + i + "].", m));
            }
            return out;
        }

        /** Runs a constructor that validates on its own, turning its complaint into our typed error. */
        <T> T build(Builder<T> builder) throws ZnodeFormatException {
            try {
                return builder.build();
            } catch (RuntimeException e) {
                throw error(prefix + e.getMessage());
            }
        }
    }

    private interface Builder<T> {
        T build() throws ZnodeFormatException;
    }
}
