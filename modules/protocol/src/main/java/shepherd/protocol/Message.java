package shepherd.protocol;

/** A request or response body; its {@link #apiKey()} and the frame's kind say how it is laid out on the wire. */
public sealed interface Message permits Request, Response {
    ApiKey apiKey();
}
