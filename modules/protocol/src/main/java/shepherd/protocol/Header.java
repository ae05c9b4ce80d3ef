package shepherd.protocol;

/**
 * The frame header that follows the size field: {@code kind:int8, api_key:int16, api_version:int16,
 * correlation_id:int32}. A response repeats the key, version and correlation id of its request.
 */
public record Header(FrameKind kind, ApiKey apiKey, short apiVersion, int correlationId) {
    /** Encoded size of the header in bytes. */
    public static final int BYTES = 1 + 2 + 2 + 4;

    public Header {
        Checks.notNull(kind, "Header.kind");
        Checks.notNull(apiKey, "Header.apiKey");
    }
}
