package shepherd.cli.commands;

/** The cluster could not be asked: every message is one line meant for the operator, shown without a trace. */
final class GroupAdminException extends RuntimeException {
    GroupAdminException(String message) {
        super(message, null, false, false);
    }
}
