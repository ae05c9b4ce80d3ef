package shepherd.protocol;

import java.util.List;

/**
 * Api 4, coordinator → consumer: {@code coordinator_epoch:int32, generation:int32,
 * assigned:[PartitionAssignment]}: fetch these partitions from these offsets in generation {@code generation}.
 */
public record StartRequest(int coordinatorEpoch, int generation, List<PartitionAssignment> assigned)
        implements Request {
    public StartRequest {
        assigned = Checks.list(assigned, "StartRequest.assigned");
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.START;
    }
}
