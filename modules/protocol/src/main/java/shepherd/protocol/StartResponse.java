package shepherd.protocol;

/** Api 4 response: {@code error_code:int16}. */
public record StartResponse(ErrorCode errorCode) implements Response {
    public StartResponse {
        Checks.notNull(errorCode, "StartResponse.errorCode");
    }

    public static StartResponse ok() {
        return new StartResponse(ErrorCode.NONE);
    }

    public static StartResponse error(ErrorCode errorCode) {
        return new StartResponse(Checks.anError(errorCode, "StartResponse.errorCode"));
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.START;
    }
}
