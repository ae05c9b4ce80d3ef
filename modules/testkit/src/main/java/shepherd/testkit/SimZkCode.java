package shepherd.testkit;

/** Result codes, a subset of ZooKeeper's {@code KeeperException.Code}: the ones a coordinator has to branch on. */
public enum SimZkCode {
    OK,
    NO_NODE,
    NODE_EXISTS,
    BAD_VERSION,
    NOT_EMPTY,
    NO_CHILDREN_FOR_EPHEMERALS,
    /** The outcome of the request is unknown: it may or may not have been applied. */
    CONNECTION_LOSS,
    /** The session is gone; nothing issued through this client can succeed any more. */
    SESSION_EXPIRED
}
