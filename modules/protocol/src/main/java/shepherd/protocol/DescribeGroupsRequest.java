package shepherd.protocol;

import java.util.List;

/**
 * Api 7, admin → coordinator: {@code group_ids:[string]} — describe these groups as the coordinator holds them;
 * an empty list means every group it knows. Read-only: it changes nothing and needs no membership.
 */
public record DescribeGroupsRequest(List<String> groupIds) implements Request {
    public DescribeGroupsRequest {
        groupIds = Checks.list(groupIds, "DescribeGroupsRequest.groupIds");
    }

    /** Every group the coordinator knows. */
    public static DescribeGroupsRequest all() {
        return new DescribeGroupsRequest(List.of());
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.DESCRIBE_GROUPS;
    }
}
