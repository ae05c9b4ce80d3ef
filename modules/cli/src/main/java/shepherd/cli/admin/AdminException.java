package shepherd.cli.admin;

/**
 * An administration request refused or failed for a reason the operator can act on: the message is one line naming
 * the offending value (a topic that already exists, a shrinking partition count, live members of a group, an
 * unreachable ZooKeeper). The commands print it and exit non-zero; no stack trace is needed to understand it.
 *
 * <p>An {@link IllegalStateException}, so that {@code LocalCluster}, which reports ZooKeeper failures as those,
 * keeps its contract.
 */
public final class AdminException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public AdminException(String message) {
        super(message);
    }

    public AdminException(String message, Throwable cause) {
        super(message, cause);
    }
}
