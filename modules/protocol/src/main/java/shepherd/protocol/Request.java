package shepherd.protocol;

/** A message sent with {@code kind = 0}; every one is answered by the {@link Response} of the same api key. */
public sealed interface Request extends Message
        permits ConsultRequest, RegisterRequest, PingRequest, StopRequest, StartRequest, OffsetCommitRequest,
                LeaveRequest, DescribeGroupsRequest {}
