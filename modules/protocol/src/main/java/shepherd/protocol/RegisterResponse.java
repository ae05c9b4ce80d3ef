package shepherd.protocol;

/** Api 1 response: {@code error_code:int16, coordinator_epoch:int32, consumer_id:string}. */
public record RegisterResponse(ErrorCode errorCode, int coordinatorEpoch, String consumerId) implements Response {
    public RegisterResponse {
        Checks.notNull(errorCode, "RegisterResponse.errorCode");
        Checks.notNull(consumerId, "RegisterResponse.consumerId");
    }

    /** A rejection with no epoch (−1) and an empty consumer id. */
    public static RegisterResponse error(ErrorCode errorCode) {
        return new RegisterResponse(Checks.anError(errorCode, "RegisterResponse.errorCode"), -1, "");
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.REGISTER;
    }
}
