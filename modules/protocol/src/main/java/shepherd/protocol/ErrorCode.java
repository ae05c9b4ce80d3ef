package shepherd.protocol;

import java.util.Optional;

/**
 * The {@code error_code:int16} values of every response. A retriable error means "the same request may succeed
 * later, possibly at another broker" (rediscover with Consult and try again); the others need the sender to change
 * what it sends. Codes are explicit and never derived from the ordinal.
 */
public enum ErrorCode {
    NONE(0, false),
    /** Something unexpected went wrong at the responder; it logged it. */
    UNKNOWN(-1, false),
    NOT_COORDINATOR(1, true),
    COORDINATOR_NOT_READY(2, true),
    INVALID_REGISTRATION(3, false),
    STALE_COORDINATOR_EPOCH(4, false),
    ILLEGAL_GENERATION(5, false),
    UNKNOWN_CONSUMER(6, false),
    REBALANCE_IN_PROGRESS(7, true),
    /** The request could not be decoded; the responder closes the connection after answering. */
    INVALID_REQUEST(8, false),
    UNSUPPORTED_VERSION(9, false),
    NOT_OWNER(10, false);

    private static final ErrorCode[] VALUES = values();

    private final short code;
    private final boolean retriable;

    ErrorCode(int code, boolean retriable) {
        this.code = (short) code;
        this.retriable = retriable;
    }

    public short code() {
        return code;
    }

    public boolean retriable() {
        return retriable;
    }

    public static Optional<ErrorCode> forCode(short code) {
        for (ErrorCode error : VALUES) {
            if (error.code == code) {
                return Optional.of(error);
            }
        }
        return Optional.empty();
    }
}
