package shepherd.testkit;

/** Session state changes, as a ZooKeeper default watcher sees them ({@code KeeperState}). */
public enum SimZkSessionEvent {
    /** The link is down; the session may still be alive on the server, and may not. */
    DISCONNECTED,
    SYNC_CONNECTED,
    /** Final: the session and its ephemerals are gone, the client must connect anew. */
    EXPIRED
}
