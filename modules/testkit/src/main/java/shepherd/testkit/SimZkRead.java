package shepherd.testkit;

/** One read of a read-only {@code multi}: a node's data, or its children. Such a multi sets no watch. */
public record SimZkRead(Kind kind, String path) {
    public enum Kind {
        DATA,
        CHILDREN
    }

    public static SimZkRead data(String path) {
        return new SimZkRead(Kind.DATA, path);
    }

    public static SimZkRead children(String path) {
        return new SimZkRead(Kind.CHILDREN, path);
    }
}
