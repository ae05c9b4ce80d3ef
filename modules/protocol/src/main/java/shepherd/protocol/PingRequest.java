package shepherd.protocol;

/** Api 2, coordinator → consumer: {@code coordinator_epoch:int32, generation:int32, num_retries:int16}. */
public record PingRequest(int coordinatorEpoch, int generation, short numRetries) implements Request {
    @Override
    public ApiKey apiKey() {
        return ApiKey.PING;
    }
}
