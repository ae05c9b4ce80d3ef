package shepherd.coordination;

import java.util.Objects;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.Subscription;

/**
 * A member's registration as the coordinator keeps it in {@code /consumers/groups/[g]/ids/[consumer]}: what it
 * subscribes to and the settings that time its pings and lease. Persistent, so that a new coordinator knows every
 * group's members (DESIGN §4).
 */
public record Registration(
        Subscription subscription, boolean autoCommit, OffsetReset autoOffsetReset, int pingIntervalMs,
        short maxPingRetries) {

    public Registration {
        Objects.requireNonNull(subscription, "subscription");
        Objects.requireNonNull(autoOffsetReset, "autoOffsetReset");
    }

    public static Registration of(RegisterRequest request) {
        return new Registration(request.subscription(), request.autoCommit(), request.autoOffsetReset(),
                request.pingIntervalMs(), request.maxPingRetries());
    }

    /** L = ping_interval_ms × (max_ping_retries + 1) (DESIGN §1). */
    public long leaseMs() {
        return (long) pingIntervalMs * ((long) maxPingRetries + 1);
    }
}
