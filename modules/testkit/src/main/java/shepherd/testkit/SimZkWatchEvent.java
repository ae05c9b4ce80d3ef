package shepherd.testkit;

/** A one-shot watch firing. It carries no data on purpose: as in ZooKeeper, the watcher has to read again. */
public record SimZkWatchEvent(Type type, String path) {
    public enum Type {
        NODE_CREATED,
        NODE_DELETED,
        NODE_DATA_CHANGED,
        NODE_CHILDREN_CHANGED
    }
}
