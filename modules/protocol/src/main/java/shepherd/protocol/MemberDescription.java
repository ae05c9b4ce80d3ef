package shepherd.protocol;

/**
 * One member in a GroupDescription: {@code consumer_id:string, subscription:Subscription, ping_interval_ms:int32,
 * last_ping_age_ms:int64}. {@code lastPingAgeMs} is how long ago, by the coordinator's clock, the member last
 * answered a Ping; {@link #NEVER} (−1) if it has not answered one since it registered with this coordinator. What
 * it owns is in the group's partitions, not here.
 */
public record MemberDescription(String consumerId, Subscription subscription, int pingIntervalMs, long lastPingAgeMs) {
    /** {@code last_ping_age_ms} of a member that has not answered a Ping yet. */
    public static final long NEVER = -1;

    public MemberDescription {
        Checks.notNull(consumerId, "MemberDescription.consumerId");
        Checks.notNull(subscription, "MemberDescription.subscription");
    }
}
