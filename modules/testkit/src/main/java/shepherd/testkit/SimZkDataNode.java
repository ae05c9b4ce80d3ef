package shepherd.testkit;

import java.util.TreeSet;

/** A znode as the server holds it; inspection and replies get its {@link #stat} or a {@link #snapshot}. */
final class SimZkDataNode {
    final String path;
    final long czxid;
    final long ephemeralOwner;
    final TreeSet<String> children = new TreeSet<>();
    Object data;
    int version;
    int cversion;
    long mzxid;

    SimZkDataNode(String path, Object data, long zxid, long ephemeralOwner) {
        this.path = path;
        this.data = data;
        this.czxid = zxid;
        this.mzxid = zxid;
        this.ephemeralOwner = ephemeralOwner;
    }

    SimZkStat stat() {
        return new SimZkStat(version, cversion, czxid, mzxid, ephemeralOwner);
    }

    SimZkNode snapshot() {
        return new SimZkNode(path, data, stat());
    }
}
