package shepherd.protocol;

/** A message sent with {@code kind = 1}; every response body starts with its {@code error_code:int16}. */
public sealed interface Response extends Message
        permits ConsultResponse, RegisterResponse, PingResponse, StopResponse, StartResponse, OffsetCommitResponse,
                LeaveResponse, DescribeGroupsResponse {
    ErrorCode errorCode();
}
