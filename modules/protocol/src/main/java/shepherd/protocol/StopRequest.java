package shepherd.protocol;

/** Api 3, coordinator → consumer: stop fetching; {@code generation} is the generation being ended. */
public record StopRequest(int coordinatorEpoch, int generation) implements Request {
    @Override
    public ApiKey apiKey() {
        return ApiKey.STOP;
    }
}
