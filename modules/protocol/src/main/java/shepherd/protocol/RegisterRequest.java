package shepherd.protocol;

/**
 * Api 1, consumer → coordinator: join {@code groupId} with this subscription and settings. The consumer's lease is
 * {@code pingIntervalMs × (maxPingRetries + 1)}; {@code highestEpochSeen} lets a coordinator of a lower epoch notice
 * that it is stale. Semantic checks (positive intervals, a valid pattern) belong to the coordinator, which answers
 * INVALID_REGISTRATION; the codec carries any value.
 */
public record RegisterRequest(
        String groupId,
        String consumerId,
        Subscription subscription,
        boolean autoCommit,
        OffsetReset autoOffsetReset,
        int pingIntervalMs,
        short maxPingRetries,
        int highestEpochSeen)
        implements Request {
    public RegisterRequest {
        Checks.notNull(groupId, "RegisterRequest.groupId");
        Checks.notNull(consumerId, "RegisterRequest.consumerId");
        Checks.notNull(subscription, "RegisterRequest.subscription");
        Checks.notNull(autoOffsetReset, "RegisterRequest.autoOffsetReset");
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.REGISTER;
    }
}
