package shepherd.protocol;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * The one error decoding can raise: the input is malformed. {@link #reason()} names the field and the offending
 * value; the accessors say what was known of the frame when decoding failed, which is what
 * {@link FrameCodec#errorReplyFor} needs to answer it (DESIGN §3: a malformed frame gets an INVALID_REQUEST response
 * when a correlation id could be read).
 *
 * <p>The header is read as a whole before any of it is validated, so once {@link #headerRead()} is true every raw
 * header field is known even if, say, the api key is unknown. The exception carries no stack trace: it is an
 * expected outcome of reading untrusted bytes, not a bug, and a peer sending garbage should cost little.
 */
public final class DecodeException extends Exception {
    private final String reason;
    private final boolean headerRead;
    private final byte rawKind;
    private final short rawApiKey;
    private final short rawApiVersion;
    private final int correlationId;

    private DecodeException(String reason, boolean headerRead, byte rawKind, short rawApiKey, short rawApiVersion,
                            int correlationId) {
        super(reason + (headerRead ? describe(rawKind, rawApiKey, rawApiVersion, correlationId) : ""), null,
                false, false);
        this.reason = reason;
        this.headerRead = headerRead;
        this.rawKind = rawKind;
        this.rawApiKey = rawApiKey;
        this.rawApiVersion = rawApiVersion;
        this.correlationId = correlationId;
    }

    /** Decoding failed before the whole header could be read. */
    static DecodeException withoutHeader(String reason) {
        return new DecodeException(reason, false, (byte) 0, (short) 0, (short) 0, 0);
    }

    /** Decoding failed after the header's raw fields were read. */
    static DecodeException withHeader(String reason, byte rawKind, short rawApiKey, short rawApiVersion,
                                      int correlationId) {
        return new DecodeException(reason, true, rawKind, rawApiKey, rawApiVersion, correlationId);
    }

    /** What is wrong, naming the field and value, e.g. {@code "RegisterRequest.group_id: string length 70 ..."}. */
    public String reason() {
        return reason;
    }

    /** Whether the 9 header bytes were read; the raw accessors are meaningful only then. */
    public boolean headerRead() {
        return headerRead;
    }

    public OptionalInt correlationId() {
        return headerRead ? OptionalInt.of(correlationId) : OptionalInt.empty();
    }

    /** The frame's kind, when the header was read and its kind byte is a known kind. */
    public Optional<FrameKind> kind() {
        return headerRead ? FrameKind.forCode(rawKind) : Optional.empty();
    }

    /** The frame's api key, when the header was read and its api key is a known one. */
    public Optional<ApiKey> apiKey() {
        return headerRead ? ApiKey.forId(rawApiKey) : Optional.empty();
    }

    /** The header's kind byte as read; 0 when {@link #headerRead()} is false. */
    public byte rawKind() {
        return rawKind;
    }

    /** The header's api key as read, known or not; 0 when {@link #headerRead()} is false. */
    public short rawApiKey() {
        return rawApiKey;
    }

    /** The header's api version as read, supported or not; 0 when {@link #headerRead()} is false. */
    public short rawApiVersion() {
        return rawApiVersion;
    }

    private static String describe(byte kind, short apiKey, short apiVersion, int correlationId) {
        return " (frame kind=" + kind + ", api_key=" + apiKey + ", api_version=" + apiVersion
                + ", correlation_id=" + correlationId + ")";
    }
}
