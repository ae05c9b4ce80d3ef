package shepherd.protocol;

import java.util.List;

/**
 * Api 0 response: {@code error_code:int16, coordinator_id:int32, coordinator_epoch:int32, brokers:[BrokerInfo]}.
 * {@link #NONE} (−1) in {@code coordinatorId}/{@code coordinatorEpoch} means no coordinator is elected yet.
 */
public record ConsultResponse(ErrorCode errorCode, int coordinatorId, int coordinatorEpoch, List<BrokerInfo> brokers)
        implements Response {
    /** The coordinator id and epoch that mean "none known". */
    public static final int NONE = -1;

    public ConsultResponse {
        Checks.notNull(errorCode, "ConsultResponse.errorCode");
        brokers = Checks.list(brokers, "ConsultResponse.brokers");
    }

    public static ConsultResponse error(ErrorCode errorCode) {
        return new ConsultResponse(Checks.anError(errorCode, "ConsultResponse.errorCode"), NONE, NONE, List.of());
    }

    @Override
    public ApiKey apiKey() {
        return ApiKey.CONSULT;
    }
}
