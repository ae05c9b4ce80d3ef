package shepherd.protocol;

/**
 * One member in a GroupDescription: {@code consumer_id:string, host:string, subscription:Subscription,
 * ping_interval_ms:int32, last_ping_age_ms:int64}. {@code host} is the numeric IP address the coordinator sees its
 * current connection come from, {@link #HOST_UNKNOWN} ("") when it is not connected or the coordinator was not told.
 * {@code lastPingAgeMs} is how long ago, by the coordinator's clock, the member last answered a Ping; {@link #NEVER}
 * (−1) if it has not answered one since it registered with this coordinator. What it owns is in the group's
 * partitions, not here.
 */
public record MemberDescription(String consumerId, String host, Subscription subscription, int pingIntervalMs,
                                long lastPingAgeMs) {
    /** {@code host} of a member without a connection, or whose connection's address the coordinator does not know. */
    public static final String HOST_UNKNOWN = "";
    /** {@code last_ping_age_ms} of a member that has not answered a Ping yet. */
    public static final long NEVER = -1;

    public MemberDescription {
        Checks.notNull(consumerId, "MemberDescription.consumerId");
        Checks.notNull(host, "MemberDescription.host");
        Checks.notNull(subscription, "MemberDescription.subscription");
    }
}
