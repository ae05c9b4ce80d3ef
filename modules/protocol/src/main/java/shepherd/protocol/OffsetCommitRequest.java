package shepherd.protocol;

import java.util.List;

/**
 * Api 5, consumer → coordinator: {@code group_id, consumer_id, coordinator_epoch:int32, generation:int32,
 * offsets:[PartitionOffset]}. The epoch and generation let the coordinator accept offsets only from the current
 * owner (DESIGN D10).
 */
public record OffsetCommitRequest(
        String groupId, String consumerId, int coordinatorEpoch, int generation, List<PartitionOffset> offsets)
        implements Request {
    public OffsetCommitRequest {
        Checks.notNull(groupId, "OffsetCommitRequest.groupId");
        Checks.notNull(consumerId, "OffsetCommitRequest.consumerId");
        offsets = Checks.list(offsets, "OffsetCommitRequest.offsets");
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.OFFSET_COMMIT;
    }
}
