package shepherd.protocol;

import java.util.List;

/**
 * Api 3 response: {@code error_code:int16, offsets:[PartitionOffset]}, sent once every fetcher is closed;
 * {@code offsets} (nullable) are those the application has taken, null when the consumer does not auto-commit.
 */
public record StopResponse(ErrorCode errorCode, List<PartitionOffset> offsets) implements Response {
    public StopResponse {
        Checks.notNull(errorCode, "StopResponse.errorCode");
        offsets = Checks.nullableList(offsets, "StopResponse.offsets");
    }

    public static StopResponse error(ErrorCode errorCode) {
        return new StopResponse(Checks.anError(errorCode, "StopResponse.errorCode"), null);
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.STOP;
    }
}
