package shepherd.protocol;

import java.util.List;

/** Api 5 response: {@code error_code:int16, results:[PartitionResult]}, one result per committed partition. */
public record OffsetCommitResponse(ErrorCode errorCode, List<PartitionResult> results) implements Response {
    public OffsetCommitResponse {
        Checks.notNull(errorCode, "OffsetCommitResponse.errorCode");
        results = Checks.list(results, "OffsetCommitResponse.results");
    }

    /** A rejection of the whole request, with no per-partition results. */
    public static OffsetCommitResponse error(ErrorCode errorCode) {
        return new OffsetCommitResponse(Checks.anError(errorCode, "OffsetCommitResponse.errorCode"), List.of());
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.OFFSET_COMMIT;
    }
}
