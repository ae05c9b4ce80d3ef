package shepherd.protocol;

/** Responses built from an api key alone, for the places that must answer a request they could not handle. */
public final class Responses {
    private Responses() {}

    /**
     * The smallest valid response of {@code api} carrying {@code error}: empty lists, −1 ids, epochs and
     * generations, null nullable arrays, an empty consumer id.
     *
     * @throws IllegalArgumentException if {@code error} is {@link ErrorCode#NONE}
     */
    public static Response errorResponse(ApiKey api, ErrorCode error) {
        return switch (Checks.notNull(api, "api")) {
            case CONSULT -> ConsultResponse.error(error);
            case REGISTER -> RegisterResponse.error(error);
            case PING -> PingResponse.error(error);
            case STOP -> StopResponse.error(error);
            case START -> StartResponse.error(error);
            case OFFSET_COMMIT -> OffsetCommitResponse.error(error);
            case LEAVE -> LeaveResponse.error(error);
            case DESCRIBE_GROUPS -> DescribeGroupsResponse.error(error);
        };
    }
}
