package shepherd.protocol;

/** Api 0, consumer → any broker: "who is the coordinator, and which brokers exist?" The body is empty. */
public record ConsultRequest() implements Request {
    @Override
    public ApiKey apiKey() {
        return ApiKey.CONSULT;
    }
}
