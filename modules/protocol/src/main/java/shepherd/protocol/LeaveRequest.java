package shepherd.protocol;

import java.util.List;

/**
 * Api 6, consumer → coordinator: {@code group_id, consumer_id, offsets:[PartitionOffset]} — leave the group, with
 * final offsets to commit (nullable: null when the consumer does not auto-commit).
 */
public record LeaveRequest(String groupId, String consumerId, List<PartitionOffset> offsets) implements Request {
    public LeaveRequest {
        Checks.notNull(groupId, "LeaveRequest.groupId");
        Checks.notNull(consumerId, "LeaveRequest.consumerId");
        offsets = Checks.nullableList(offsets, "LeaveRequest.offsets");
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.LEAVE;
    }
}
