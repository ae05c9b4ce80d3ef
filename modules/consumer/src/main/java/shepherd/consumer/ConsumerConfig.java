package shepherd.consumer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import shepherd.protocol.IdRule;
import shepherd.protocol.OffsetReset;

/**
 * Everything a {@link ShepherdConsumer} needs, validated when built: a mistake is an
 * {@link InvalidConsumerConfigException} naming the setting and the value, before any thread or socket exists.
 *
 * <pre>{@code
 * ConsumerConfig config = ConsumerConfig.builder()
 *         .bootstrap("127.0.0.1:9092,127.0.0.1:9093")
 *         .groupId("billing")
 *         .source("file", Map.of("root", "/var/lib/log"))
 *         .build();
 * }</pre>
 *
 * <p>Defaults follow Kafka 0.8's high-level consumer where it has one: auto-commit on, {@code largest} as the reset
 * policy, a consumer id of the host name plus a random suffix. The lease is {@code pingIntervalMs × (maxPingRetries
 * + 1)} (DESIGN §1): a consumer that hears no valid Ping for that long stops fetching and re-registers.
 */
public final class ConsumerConfig {
    /** Ids become znode names on the coordinator's side, which refuses anything else (INVALID_REGISTRATION). */
    public static final int ID_LENGTH_MAX = IdRule.LENGTH_MAX;
    public static final int PING_INTERVAL_MS_MIN = 10;
    public static final int PING_INTERVAL_MS_MAX = 3_600_000;
    public static final int MAX_PING_RETRIES_MAX = 100;
    public static final int QUEUED_RECORDS_MAX_LIMIT = 1_000_000;
    public static final int FETCH_RECORDS_MAX_LIMIT = 100_000;
    public static final long TIMEOUT_MS_MAX = 3_600_000L;
    public static final long BACKOFF_MS_MAX = 3_600_000L;

    private final List<InetSocketAddress> bootstrap;
    private final String groupId;
    private final String consumerId;
    private final boolean autoCommit;
    private final OffsetReset autoOffsetReset;
    private final int pingIntervalMs;
    private final int maxPingRetries;
    private final long backoffInitialMs;
    private final long backoffMaxMs;
    private final String sourceName;
    private final Map<String, String> sourceSettings;
    private final PartitionSource sourceInstance;
    private final int queuedRecordsMax;
    private final int fetchRecordsMax;
    private final long fetchWaitMs;
    private final long consumerTimeoutMs;
    private final long requestTimeoutMs;
    private final long shutdownTimeoutMs;
    private final java.util.function.Consumer<ConsumerEvent> listener;

    private ConsumerConfig(Builder b) {
        this.bootstrap = List.copyOf(b.bootstrap);
        this.groupId = b.groupId;
        this.consumerId = b.consumerId;
        this.autoCommit = b.autoCommit;
        this.autoOffsetReset = b.autoOffsetReset;
        this.pingIntervalMs = b.pingIntervalMs;
        this.maxPingRetries = b.maxPingRetries;
        this.backoffInitialMs = b.backoffInitialMs;
        this.backoffMaxMs = b.backoffMaxMs;
        this.sourceName = b.sourceName;
        this.sourceSettings = Map.copyOf(b.sourceSettings);
        this.sourceInstance = b.sourceInstance;
        this.queuedRecordsMax = b.queuedRecordsMax;
        this.fetchRecordsMax = b.fetchRecordsMax;
        this.fetchWaitMs = b.fetchWaitMs;
        this.consumerTimeoutMs = b.consumerTimeoutMs;
        this.requestTimeoutMs = b.requestTimeoutMs;
        this.shutdownTimeoutMs = b.shutdownTimeoutMs;
        this.listener = b.listener;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Brokers to Consult first, in the order given; the consumer shuffles them (the seed's random pick). */
    public List<InetSocketAddress> bootstrap() {
        return bootstrap;
    }

    public String groupId() {
        return groupId;
    }

    public String consumerId() {
        return consumerId;
    }

    /** Whether Ping and Stop responses carry the consumed offsets for the coordinator to commit. */
    public boolean autoCommit() {
        return autoCommit;
    }

    /** Where to start a partition without a committed offset. */
    public OffsetReset autoOffsetReset() {
        return autoOffsetReset;
    }

    public int pingIntervalMs() {
        return pingIntervalMs;
    }

    public int maxPingRetries() {
        return maxPingRetries;
    }

    /** {@code pingIntervalMs × (maxPingRetries + 1)}. */
    public long leaseMs() {
        return (long) pingIntervalMs * (maxPingRetries + 1L);
    }

    public long backoffInitialMs() {
        return backoffInitialMs;
    }

    public long backoffMaxMs() {
        return backoffMaxMs;
    }

    /** The {@link PartitionSource#name()} to look up, unless {@link #sourceInstance()} is given. */
    public String sourceName() {
        return sourceName;
    }

    public Map<String, String> sourceSettings() {
        return sourceSettings;
    }

    /** A source passed in directly (tests, class-path applications), instead of one found by name. */
    public Optional<PartitionSource> sourceInstance() {
        return Optional.ofNullable(sourceInstance);
    }

    /** Records buffered per stream before its fetchers wait for the application (Kafka's queued chunks). */
    public int queuedRecordsMax() {
        return queuedRecordsMax;
    }

    /** Records a fetcher reads from its source at a time. */
    public int fetchRecordsMax() {
        return fetchRecordsMax;
    }

    /** How long a fetcher waits in the source for new records before it looks whether it was closed. */
    public long fetchWaitMs() {
        return fetchWaitMs;
    }

    /** How long a stream's iterator waits for a record; −1 waits for ever (Kafka's {@code consumer.timeout.ms}). */
    public long consumerTimeoutMs() {
        return consumerTimeoutMs;
    }

    /** How long Consult, Register and OffsetCommit wait for their answer. */
    public long requestTimeoutMs() {
        return requestTimeoutMs;
    }

    /** How long {@link ShepherdConsumer#shutdown()} waits for a graceful Leave before it just closes. */
    public long shutdownTimeoutMs() {
        return shutdownTimeoutMs;
    }

    /** Who hears of fetches starting and stopping, rejected commands and state changes; none by default. */
    public Optional<java.util.function.Consumer<ConsumerEvent>> listener() {
        return Optional.ofNullable(listener);
    }

    @Override
    public String toString() {
        return "ConsumerConfig[group=" + groupId + ", consumer=" + consumerId + ", bootstrap=" + bootstrap
                + ", autoCommit=" + autoCommit + ", reset=" + autoOffsetReset.wireName() + ", ping=" + pingIntervalMs
                + "ms x" + (maxPingRetries + 1) + ", source=" + (sourceInstance != null ? sourceInstance.name()
                : sourceName) + "]";
    }

    /** Settings with their defaults; {@link #build()} validates them all. */
    public static final class Builder {
        private final List<InetSocketAddress> bootstrap = new ArrayList<>();
        private String groupId;
        private String consumerId;
        private boolean autoCommit = true;
        private OffsetReset autoOffsetReset = OffsetReset.LARGEST;
        private int pingIntervalMs = 1_000;
        private int maxPingRetries = 2;
        private long backoffInitialMs = 100;
        private long backoffMaxMs = 10_000;
        private String sourceName = "file";
        private final Map<String, String> sourceSettings = new LinkedHashMap<>();
        private PartitionSource sourceInstance;
        private int queuedRecordsMax = 1_000;
        private int fetchRecordsMax = 500;
        private long fetchWaitMs = 100;
        private long consumerTimeoutMs = -1;
        private long requestTimeoutMs = 5_000;
        private long shutdownTimeoutMs = 10_000;
        private java.util.function.Consumer<ConsumerEvent> listener;

        private Builder() {}

        /** Adds brokers written {@code host:port}, separated by commas (spaces allowed). */
        public Builder bootstrap(String hostPorts) {
            Objects.requireNonNull(hostPorts, "hostPorts");
            for (String part : hostPorts.split(",")) {
                String hp = part.strip();
                if (hp.isEmpty()) {
                    continue;
                }
                int colon = hp.lastIndexOf(':');
                if (colon <= 0 || colon == hp.length() - 1) {
                    throw new InvalidConsumerConfigException("bootstrap", "'" + hp + "' is not host:port");
                }
                String host = hp.substring(0, colon);
                int port;
                try {
                    port = Integer.parseInt(hp.substring(colon + 1));
                } catch (NumberFormatException e) {
                    throw new InvalidConsumerConfigException("bootstrap", "port of '" + hp + "' is not a number");
                }
                if (port < 1 || port > 65_535) {
                    throw new InvalidConsumerConfigException("bootstrap", "port of '" + hp + "' is outside [1, 65535]");
                }
                bootstrap.add(InetSocketAddress.createUnresolved(host, port));
            }
            return this;
        }

        public Builder bootstrap(List<InetSocketAddress> addresses) {
            Objects.requireNonNull(addresses, "addresses").forEach(a -> bootstrap.add(Objects.requireNonNull(a)));
            return this;
        }

        public Builder groupId(String value) {
            groupId = value;
            return this;
        }

        /** Defaults to the host name plus a random suffix, so two processes on one host never share an id. */
        public Builder consumerId(String value) {
            consumerId = value;
            return this;
        }

        public Builder autoCommit(boolean value) {
            autoCommit = value;
            return this;
        }

        public Builder autoOffsetReset(OffsetReset value) {
            autoOffsetReset = value;
            return this;
        }

        /** {@code "smallest"} or {@code "largest"}, as Kafka spells them. */
        public Builder autoOffsetReset(String value) {
            autoOffsetReset = OffsetReset.forWireName(Objects.requireNonNull(value, "value"))
                    .orElseThrow(() -> new InvalidConsumerConfigException("autoOffsetReset",
                            "'" + value + "' is neither 'smallest' nor 'largest'"));
            return this;
        }

        public Builder pingIntervalMs(int value) {
            pingIntervalMs = value;
            return this;
        }

        public Builder maxPingRetries(int value) {
            maxPingRetries = value;
            return this;
        }

        /** Discovery retries wait {@code initial × 2ⁿ}, capped at {@code max}. */
        public Builder backoffMs(long initial, long max) {
            backoffInitialMs = initial;
            backoffMaxMs = max;
            return this;
        }

        /** The partition source to find by name, and its settings (for {@code file}: {@code root}). */
        public Builder source(String name, Map<String, String> settings) {
            sourceName = Objects.requireNonNull(name, "name");
            sourceInstance = null;
            sourceSettings.clear();
            sourceSettings.putAll(Objects.requireNonNull(settings, "settings"));
            return this;
        }

        /** A partition source instance to use instead of one found by name. */
        public Builder source(PartitionSource source, Map<String, String> settings) {
            sourceInstance = Objects.requireNonNull(source, "source");
            sourceName = source.name();
            sourceSettings.clear();
            sourceSettings.putAll(Objects.requireNonNull(settings, "settings"));
            return this;
        }

        public Builder queuedRecordsMax(int value) {
            queuedRecordsMax = value;
            return this;
        }

        public Builder fetchRecordsMax(int value) {
            fetchRecordsMax = value;
            return this;
        }

        public Builder fetchWaitMs(long value) {
            fetchWaitMs = value;
            return this;
        }

        /** −1 (the default) lets a stream's iterator wait for ever. */
        public Builder consumerTimeoutMs(long value) {
            consumerTimeoutMs = value;
            return this;
        }

        public Builder requestTimeoutMs(long value) {
            requestTimeoutMs = value;
            return this;
        }

        public Builder shutdownTimeoutMs(long value) {
            shutdownTimeoutMs = value;
            return this;
        }

        /**
         * Receives a {@link ConsumerEvent} for every fetch started or stopped, command rejected and state change,
         * in order, on a thread of its own. An exception it throws is logged once and the next event still comes.
         */
        public Builder listener(java.util.function.Consumer<ConsumerEvent> value) {
            listener = value;
            return this;
        }

        public ConsumerConfig build() {
            require(!bootstrap.isEmpty(), "bootstrap", "no broker given; expected host:port[,host:port…]");
            require(groupId != null, "groupId", "is required");
            checkId("groupId", groupId);
            if (consumerId == null) {
                consumerId = defaultConsumerId();
            }
            checkId("consumerId", consumerId);
            require(autoOffsetReset != null, "autoOffsetReset", "is required");
            range("pingIntervalMs", pingIntervalMs, PING_INTERVAL_MS_MIN, PING_INTERVAL_MS_MAX);
            range("maxPingRetries", maxPingRetries, 0, MAX_PING_RETRIES_MAX);
            range("backoffInitialMs", backoffInitialMs, 1, BACKOFF_MS_MAX);
            range("backoffMaxMs", backoffMaxMs, backoffInitialMs, BACKOFF_MS_MAX);
            require(!sourceName.isBlank(), "source", "the source name is blank");
            range("queuedRecordsMax", queuedRecordsMax, 1, QUEUED_RECORDS_MAX_LIMIT);
            range("fetchRecordsMax", fetchRecordsMax, 1, FETCH_RECORDS_MAX_LIMIT);
            range("fetchWaitMs", fetchWaitMs, 1, TIMEOUT_MS_MAX);
            require(consumerTimeoutMs == -1 || (consumerTimeoutMs >= 0 && consumerTimeoutMs <= TIMEOUT_MS_MAX),
                    "consumerTimeoutMs", consumerTimeoutMs + " is neither -1 nor in [0, " + TIMEOUT_MS_MAX + "]");
            range("requestTimeoutMs", requestTimeoutMs, 1, TIMEOUT_MS_MAX);
            range("shutdownTimeoutMs", shutdownTimeoutMs, 1, TIMEOUT_MS_MAX);
            return new ConsumerConfig(this);
        }

        private static String defaultConsumerId() {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) { // no resolvable host name: still a usable, unique id
                host = "consumer";
            }
            StringBuilder clean = new StringBuilder();
            for (char c : host.toCharArray()) {
                clean.append(IdRule.allowed(c) ? c : '_');
            }
            String suffix = Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
            int room = ID_LENGTH_MAX - suffix.length() - 1;
            String base = clean.length() > room ? clean.substring(0, room) : clean.toString();
            return base + "-" + suffix;
        }

        /** The coordinator's rule for ids (they become znode names), checked here so the mistake shows at once. */
        private static void checkId(String setting, String value) {
            IdRule.violation(value).ifPresent(reason -> {
                throw new InvalidConsumerConfigException(setting, reason);
            });
        }

        private static void range(String setting, long value, long min, long max) {
            require(value >= min && value <= max, setting, value + " is outside [" + min + ", " + max + "]");
        }

        private static void require(boolean ok, String setting, String message) {
            if (!ok) {
                throw new InvalidConsumerConfigException(setting, message);
            }
        }
    }
}
