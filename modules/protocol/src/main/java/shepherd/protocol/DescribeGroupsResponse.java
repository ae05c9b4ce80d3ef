package shepherd.protocol;

import java.util.List;

/**
 * Api 7 response: {@code error_code:int16, coordinator_id:int32, coordinator_epoch:int32,
 * groups:[GroupDescription]}. A broker that is not the coordinator answers NOT_COORDINATOR with no groups and, in
 * {@code coordinatorId}/{@code coordinatorEpoch}, the coordinator it knows of ({@link #NONE} if none), as Consult
 * would.
 */
public record DescribeGroupsResponse(
        ErrorCode errorCode, int coordinatorId, int coordinatorEpoch, List<GroupDescription> groups)
        implements Response {
    /** The coordinator id and epoch that mean "none known". */
    public static final int NONE = -1;

    public DescribeGroupsResponse {
        Checks.notNull(errorCode, "DescribeGroupsResponse.errorCode");
        groups = Checks.list(groups, "DescribeGroupsResponse.groups");
    }

    public static DescribeGroupsResponse error(ErrorCode errorCode) {
        return new DescribeGroupsResponse(
                Checks.anError(errorCode, "DescribeGroupsResponse.errorCode"), NONE, NONE, List.of());
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.DESCRIBE_GROUPS;
    }
}
