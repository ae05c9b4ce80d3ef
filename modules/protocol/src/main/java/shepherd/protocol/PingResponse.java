package shepherd.protocol;

import java.util.List;

/**
 * Api 2 response: {@code error_code:int16, generation:int32, offsets:[PartitionOffset]}. {@code offsets} is null
 * exactly when the consumer's auto_commit is off (the seed's "fields that should not exist", made explicit).
 */
public record PingResponse(ErrorCode errorCode, int generation, List<PartitionOffset> offsets) implements Response {
    public PingResponse {
        Checks.notNull(errorCode, "PingResponse.errorCode");
        offsets = Checks.nullableList(offsets, "PingResponse.offsets");
    }

    /** A rejection with generation −1 and no offsets. */
    public static PingResponse error(ErrorCode errorCode) {
        return new PingResponse(Checks.anError(errorCode, "PingResponse.errorCode"), -1, null);
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.PING;
    }
}
