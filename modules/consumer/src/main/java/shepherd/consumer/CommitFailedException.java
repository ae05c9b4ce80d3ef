package shepherd.consumer;

import shepherd.protocol.ErrorCode;

/**
 * {@link ShepherdConsumer#commitOffsets()} could not commit: the coordinator refused (for example
 * {@code REBALANCE_IN_PROGRESS} while owners change, {@code NOT_OWNER} after a partition moved), the consumer is not
 * fetching, or the request got no answer. The offsets stay taken; they are committed with the next successful
 * commit, a Stop response (auto-commit) or the Leave at shutdown.
 */
public final class CommitFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode error;

    public CommitFailedException(ErrorCode error, String message) {
        super(message);
        this.error = error;
    }

    public CommitFailedException(ErrorCode error, String message, Throwable cause) {
        super(message, cause);
        this.error = error;
    }

    /** The coordinator's error, {@code UNKNOWN} when there was no answer. */
    public ErrorCode error() {
        return error;
    }
}
