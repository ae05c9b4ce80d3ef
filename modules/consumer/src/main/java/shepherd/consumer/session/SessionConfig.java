package shepherd.consumer.session;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.Subscription;

/**
 * Everything a session needs to know up front. {@code bootstrapBrokers} is the seed's {@code initBrokers}, in the
 * order to try them: the seed says "randomly pick a broker", and the runtime does that picking (a shuffle with its
 * own seeded random) so that the core holds no hidden randomness and the simulation replays exactly.
 *
 * <p>Backoff between discovery rounds is exponential, {@code backoffInitialMs × 2^n} capped at {@code
 * backoffMaxMs}, without jitter: jitter needs randomness, which the runtime may add by choosing these values.
 */
public record SessionConfig(
        String groupId,
        String consumerId,
        Subscription subscription,
        boolean autoCommit,
        OffsetReset autoOffsetReset,
        int pingIntervalMs,
        short maxPingRetries,
        List<BrokerInfo> bootstrapBrokers,
        long backoffInitialMs,
        long backoffMaxMs) {

    /** More bootstrap brokers than this is a configuration mistake, not a cluster. */
    public static final int BOOTSTRAP_BROKERS_MAX = 1_024;
    /** A backoff above this (an hour) would look like a hung consumer. */
    public static final long BACKOFF_MS_MAX = 3_600_000L;
    public static final long DEFAULT_BACKOFF_INITIAL_MS = 100L;
    public static final long DEFAULT_BACKOFF_MAX_MS = 10_000L;

    public SessionConfig {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(consumerId, "consumerId");
        Objects.requireNonNull(subscription, "subscription");
        Objects.requireNonNull(autoOffsetReset, "autoOffsetReset");
        bootstrapBrokers = List.copyOf(Objects.requireNonNull(bootstrapBrokers, "bootstrapBrokers"));
        require(pingIntervalMs > 0, "pingIntervalMs must be positive, got " + pingIntervalMs);
        require(maxPingRetries >= 0, "maxPingRetries must not be negative, got " + maxPingRetries);
        require(!bootstrapBrokers.isEmpty(), "bootstrapBrokers must not be empty");
        require(bootstrapBrokers.size() <= BOOTSTRAP_BROKERS_MAX,
                "bootstrapBrokers: " + bootstrapBrokers.size() + " exceeds " + BOOTSTRAP_BROKERS_MAX);
        require(distinctIds(bootstrapBrokers), "bootstrapBrokers: duplicate broker id in " + bootstrapBrokers);
        require(backoffInitialMs > 0, "backoffInitialMs must be positive, got " + backoffInitialMs);
        require(backoffMaxMs >= backoffInitialMs && backoffMaxMs <= BACKOFF_MS_MAX,
                "backoffMaxMs must be in [backoffInitialMs, " + BACKOFF_MS_MAX + "], got " + backoffMaxMs);
    }

    /** A config with the default backoff (100 ms doubling up to 10 s). */
    public static SessionConfig of(String groupId, String consumerId, Subscription subscription, boolean autoCommit,
            OffsetReset autoOffsetReset, int pingIntervalMs, short maxPingRetries, List<BrokerInfo> bootstrapBrokers) {
        return new SessionConfig(groupId, consumerId, subscription, autoCommit, autoOffsetReset, pingIntervalMs,
                maxPingRetries, bootstrapBrokers, DEFAULT_BACKOFF_INITIAL_MS, DEFAULT_BACKOFF_MAX_MS);
    }

    /**
     * The lease {@code L = ping_interval_ms × (max_ping_retries + 1)} (DESIGN §1). At most (2^31−1) × 2^15, so the
     * product of longs cannot overflow.
     */
    public long leaseMs() {
        return (long) pingIntervalMs * ((long) maxPingRetries + 1);
    }

    /** The wait before discovery round {@code failedRounds + 1}: doubling, capped, never overflowing. */
    public long backoffMs(int failedRounds) {
        int doublings = Math.min(Math.max(failedRounds, 0), 62);
        long limit = backoffMaxMs >> doublings;
        return backoffInitialMs > limit ? backoffMaxMs : Math.min(backoffMaxMs, backoffInitialMs << doublings);
    }

    private static boolean distinctIds(List<BrokerInfo> brokers) {
        Set<Integer> ids = new HashSet<>();
        for (BrokerInfo broker : brokers) {
            if (!ids.add(broker.id())) {
                return false;
            }
        }
        return true;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
