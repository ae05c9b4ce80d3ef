package shepherd.transport;

import shepherd.protocol.ApiKey;

/** No response arrived within the request's timeout; a response arriving later is logged and dropped. */
public final class RequestTimeoutException extends TransportException {
    private final ApiKey apiKey;
    private final int correlationId;
    private final long timeoutMs;

    public RequestTimeoutException(String connection, ApiKey apiKey, int correlationId, long timeoutMs) {
        super(apiKey + " request " + correlationId + " on " + connection + " got no response within " + timeoutMs
                + " ms");
        this.apiKey = apiKey;
        this.correlationId = correlationId;
        this.timeoutMs = timeoutMs;
    }

    public ApiKey apiKey() {
        return apiKey;
    }

    public int correlationId() {
        return correlationId;
    }

    public long timeoutMs() {
        return timeoutMs;
    }
}
