package shepherd.protocol;

/** Api 6 response: {@code error_code:int16}. */
public record LeaveResponse(ErrorCode errorCode) implements Response {
    public LeaveResponse {
        Checks.notNull(errorCode, "LeaveResponse.errorCode");
    }

    public static LeaveResponse ok() {
        return new LeaveResponse(ErrorCode.NONE);
    }

    public static LeaveResponse error(ErrorCode errorCode) {
        return new LeaveResponse(Checks.anError(errorCode, "LeaveResponse.errorCode"));
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.LEAVE;
    }
}
