package shepherd.coordination;

import java.util.Objects;

/**
 * The coordinator's timing and limits. Every figure of DESIGN §5's safety arithmetic is here, named with its unit:
 * the session timeout, the clock drift bound ρ (in parts per million), the maximum one-way delay {@code D} of a
 * delivered message and the safety margin. The core never reads a clock; these only turn {@code nowMs} into
 * deadlines.
 *
 * @param brokerId                   this broker's id (answers Consult, fills {@code coordinator_id})
 * @param sessionTimeoutMs           the ZooKeeper session timeout the broker negotiated
 * @param clockDriftPpm              ρ × 10⁶: how much faster or slower any clock may run than real time
 * @param messageDelayMaxMs          D: the longest one-way delay of a message that is delivered at all
 * @param safetyMarginMs             added to every lease deadline the coordinator waits out
 * @param stopTimeoutMs              how long the barrier waits for StopResponses before it retries
 * @param startTimeoutMs             how long a run waits for StartResponses before it ends with {@code false}
 * @param barrierMissesMax           Stop rounds a member may miss before it is declared failed (D8)
 * @param retryBackoffInitialMs      first delay before a failed run is retried; doubles per failure (D8)
 * @param retryBackoffMaxMs          the longest such delay
 * @param handoverGraceMs            after a clean handover: how long recorded members have to re-register
 * @param zkRetryMs                  delay before a failed ZooKeeper read or unknown-outcome write is retried
 * @param assignors                  which assignor new groups, and groups an operator named, use
 */
public record CoordinatorConfig(
        int brokerId,
        long sessionTimeoutMs,
        long clockDriftPpm,
        long messageDelayMaxMs,
        long safetyMarginMs,
        long stopTimeoutMs,
        long startTimeoutMs,
        int barrierMissesMax,
        long retryBackoffInitialMs,
        long retryBackoffMaxMs,
        long handoverGraceMs,
        long zkRetryMs,
        GroupAssignors assignors) {

    public static final long CLOCK_DRIFT_PPM_MAX = 100_000; // 10 %: beyond that the arithmetic means nothing

    public CoordinatorConfig {
        requireAtLeast("brokerId", brokerId, 0);
        requireAtLeast("sessionTimeoutMs", sessionTimeoutMs, 1);
        requireAtLeast("clockDriftPpm", clockDriftPpm, 0);
        if (clockDriftPpm > CLOCK_DRIFT_PPM_MAX) {
            throw new IllegalArgumentException("clockDriftPpm must be at most " + CLOCK_DRIFT_PPM_MAX + ", got " + clockDriftPpm);
        }
        requireAtLeast("messageDelayMaxMs", messageDelayMaxMs, 0);
        requireAtLeast("safetyMarginMs", safetyMarginMs, 0);
        requireAtLeast("stopTimeoutMs", stopTimeoutMs, 1);
        requireAtLeast("startTimeoutMs", startTimeoutMs, 1);
        requireAtLeast("barrierMissesMax", barrierMissesMax, 1);
        requireAtLeast("retryBackoffInitialMs", retryBackoffInitialMs, 1);
        requireAtLeast("retryBackoffMaxMs", retryBackoffMaxMs, retryBackoffInitialMs);
        requireAtLeast("handoverGraceMs", handoverGraceMs, 0);
        requireAtLeast("zkRetryMs", zkRetryMs, 1);
        Objects.requireNonNull(assignors, "assignors");
    }

    /** These settings, every group's assignor chosen by {@code assignors}. */
    public CoordinatorConfig withAssignors(GroupAssignors assignors) {
        return new CoordinatorConfig(brokerId, sessionTimeoutMs, clockDriftPpm, messageDelayMaxMs, safetyMarginMs,
                stopTimeoutMs, startTimeoutMs, barrierMissesMax, retryBackoffInitialMs, retryBackoffMaxMs,
                handoverGraceMs, zkRetryMs, assignors);
    }

    /** Defaults for a broker with the given id and ZooKeeper session timeout. */
    public static CoordinatorConfig defaults(int brokerId, long sessionTimeoutMs) {
        return new CoordinatorConfig(brokerId, sessionTimeoutMs, 1_000, 500, 100, 2_000, 5_000, 3, 100, 10_000,
                1_000, 200, GroupAssignors.DEFAULT);
    }

    /**
     * The instant, on our clock, after which a consumer surely no longer fetches on a lease whose last grant (Ping,
     * Start or RegisterResponse) we sent at {@code grantSentMs} (DESIGN §5, failure of a member). In real time the
     * grant arrived within D and the consumer's lease of L on its own clock, which may run slow by ρ, lasts at most
     * {@code L / (1 − ρ)}; our clock may run fast by ρ, so that real span reads at most
     * {@code (D + L / (1 − ρ)) × (1 + ρ)} on it. (DESIGN's {@code L × (1 + ρ)} is the same bound when ρ limits the
     * drift of one clock against another; with ρ per clock against real time, as here, both factors are needed.)
     */
    public long leaseSurelyOverMs(long grantSentMs, long leaseMs) {
        double rho = clockDriftPpm / 1e6;
        double realMs = messageDelayMaxMs + leaseMs / (1 - rho);
        return grantSentMs + (long) Math.ceil(realMs * (1 + rho)) + safetyMarginMs;
    }

    /**
     * Commanding needs a live session: ZooKeeper expires us no earlier than {@code sessionTimeout} after the last
     * request it answered, on its clock, which may run fast by ρ ({@code T / (1 + ρ)} real); our clock may run slow
     * by ρ, so that reads {@code T × (1 − ρ) / (1 + ρ)} on ours.
     */
    public long commandableUntilMs(long lastZkAckSentMs) {
        double rho = clockDriftPpm / 1e6;
        return lastZkAckSentMs + (long) Math.floor(sessionTimeoutMs * (1 - rho) / (1 + rho)) - safetyMarginMs;
    }

    public long keepAliveIntervalMs() {
        return Math.max(1, sessionTimeoutMs / 3);
    }

    public long backoffMs(int failures) {
        long delay = retryBackoffInitialMs;
        for (int i = 1; i < failures && delay < retryBackoffMaxMs; i++) {
            delay *= 2;
        }
        return Math.min(delay, retryBackoffMaxMs);
    }

    private static void requireAtLeast(String name, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + ", got " + value);
        }
    }
}
