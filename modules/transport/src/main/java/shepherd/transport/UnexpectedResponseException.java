package shepherd.transport;

import shepherd.protocol.ApiKey;

/**
 * The peer answered a request with a response of another api (the correlation id matched, the api key did not).
 * The request fails with this; the connection stays open.
 */
public final class UnexpectedResponseException extends TransportException {
    public UnexpectedResponseException(String connection, ApiKey requested, ApiKey received, int correlationId) {
        super(connection + " answered " + requested + " request " + correlationId + " with a " + received
                + " response");
    }
}
