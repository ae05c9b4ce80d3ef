package shepherd.testkit;

/**
 * The part of a ZooKeeper {@code Stat} a coordinator reasons with: versions for conditional writes, zxids for
 * ordering, and the owner that tells an ephemeral's holder apart from everyone else.
 */
public record SimZkStat(int version, int cversion, long czxid, long mzxid, long ephemeralOwner) {
    public boolean ephemeral() {
        return ephemeralOwner != 0;
    }
}
