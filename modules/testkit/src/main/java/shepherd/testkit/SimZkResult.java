package shepherd.testkit;

import java.util.List;

/**
 * What a client callback receives. One shape for every operation keeps callbacks uniform; fields that do not apply
 * are null, empty or -1. {@code sentAtMs} lets a caller measure how stale the answer is, which is what lease
 * reasoning needs.
 *
 * @param failedOpIndex for a failed multi, the index of the first op that failed (its code is {@code code})
 * @param results       for a read-only multi, each read's own result, in order; empty otherwise
 */
public record SimZkResult(SimZkCode code, SimZkStat stat, Object data, List<String> children, int failedOpIndex,
        long sentAtMs, List<SimZkResult> results) {
    public SimZkResult {
        children = children == null ? List.of() : List.copyOf(children);
        results = results == null ? List.of() : List.copyOf(results);
    }

    public SimZkResult(SimZkCode code, SimZkStat stat, Object data, List<String> children, int failedOpIndex,
            long sentAtMs) {
        this(code, stat, data, children, failedOpIndex, sentAtMs, List.of());
    }

    static SimZkResult of(SimZkCode code, long sentAtMs) {
        return new SimZkResult(code, null, null, List.of(), -1, sentAtMs);
    }

    public boolean ok() {
        return code == SimZkCode.OK;
    }
}
