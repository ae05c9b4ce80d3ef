package shepherd.testkit;

import java.util.List;

/**
 * One committed transaction (one zxid), in commit order: the server-side truth an invariant checker replays.
 *
 * @param sessionId the writer; for a session's end, the ended session; 0 for the admin API
 * @param changes   in application order; empty for the end of a session that held no ephemerals
 */
public record SimZkCommit(long zxid, long sessionId, long atMs, List<SimZkApplied> changes) {
    public SimZkCommit {
        changes = List.copyOf(changes);
    }
}
