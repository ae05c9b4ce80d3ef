package shepherd.testkit;

/**
 * One change inside a commit, with the data before and after so an invariant checker can judge a write without
 * keeping its own copy of the tree.
 *
 * @param newVersion the data version after the change; -1 for a deletion
 */
public record SimZkApplied(String path, Kind kind, Object oldData, Object newData, int newVersion) {
    public enum Kind {
        CREATED,
        DATA_SET,
        DELETED
    }
}
