package shepherd.protocol;

/**
 * A header and the message it frames. The constructor guarantees the pair is encodable: the kind and api key agree
 * with the message, and the version is one this build speaks.
 */
public record Frame(Header header, Message message) {
    public Frame {
        Checks.notNull(header, "Frame.header");
        Checks.notNull(message, "Frame.message");
        if (header.kind() != FrameKind.of(message) || header.apiKey() != message.apiKey()) {
            throw new IllegalArgumentException("Header says " + header.kind() + " " + header.apiKey()
                    + " but the message is a " + message.getClass().getSimpleName());
        }
        if (!header.apiKey().supportsVersion(header.apiVersion())) {
            throw new IllegalArgumentException("Unsupported version " + header.apiVersion() + " of "
                    + header.apiKey() + " (supported " + header.apiKey().minVersion() + ".."
                    + header.apiKey().maxVersion() + ")");
        }
    }

    /** A request frame at the newest version of its api. */
    public static Frame request(int correlationId, Request request) {
        return of(FrameKind.REQUEST, correlationId, request);
    }

    /** A response frame at the newest version of its api. */
    public static Frame response(int correlationId, Response response) {
        return of(FrameKind.RESPONSE, correlationId, response);
    }

    private static Frame of(FrameKind kind, int correlationId, Message message) {
        ApiKey api = Checks.notNull(message, "Frame.message").apiKey();
        return new Frame(new Header(kind, api, api.maxVersion(), correlationId), message);
    }
}
