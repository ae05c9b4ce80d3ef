package shepherd.zookeeper;

/**
 * A znode's bytes are not a value Shepherd wrote: bad JSON, a missing or mistyped field, an unknown version. The
 * message names the path and the reason, because the only useful reaction is one log line an operator can act on;
 * the reader then skips that node (DESIGN §4: garbage never stops other groups).
 */
public final class ZnodeFormatException extends Exception {
    private final String path;

    public ZnodeFormatException(String path, String reason) {
        super("garbage in znode " + path + ": " + reason);
        this.path = path;
    }

    public String path() {
        return path;
    }
}
