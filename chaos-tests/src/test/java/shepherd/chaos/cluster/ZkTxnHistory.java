package shepherd.chaos.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import shepherd.chaos.history.Entry;

/**
 * What ZooKeeper committed during a chaos run, read from every member's transaction logs after (or during) the run:
 * the elections, the coordinator writes with their epochs, and every committed offset and owner value, as history
 * entries in zxid order (see {@link TxnInterpreter} for how they are derived).
 *
 * <p><b>Which transactions count.</b> The members' logs overlap, and each may lack some: a member that was down or
 * was brought up to date with a snapshot never logged what it missed. A transaction is taken as committed when a
 * majority of the given logs hold it: ZooKeeper commits a proposal only once a majority has logged it, and nothing
 * but a truncation of uncommitted proposals ever removes a logged one (autopurge is off in {@link ZkEnsemble}).
 * A proposal logged by fewer (a leader that died before a follower acknowledged) is {@link #discarded()}. So pass
 * every member's dataDir, and read after the run has settled: a proposal in flight is not yet on a majority.
 *
 * <p>A zxid names one proposal for the life of an ensemble, so two logs never disagree about it; if they do,
 * reading fails naming both.
 */
public final class ZkTxnHistory {
    private final List<ZkTxn> txns;
    private final List<ZkTxn> discarded;
    private final List<Entry> entries;
    private final int undecodable;
    private final int garbageValues;
    private final int foreignGroupWrites;
    private final List<String> problems;

    private ZkTxnHistory(List<ZkTxn> txns, List<ZkTxn> discarded, TxnInterpreter.Result result, int undecodable,
                         List<String> problems) {
        this.txns = List.copyOf(txns);
        this.discarded = List.copyOf(discarded);
        this.entries = List.copyOf(result.entries());
        this.garbageValues = result.garbageValues();
        this.foreignGroupWrites = result.foreignGroupWrites();
        this.undecodable = undecodable;
        this.problems = List.copyOf(problems);
    }

    /**
     * Reads and interprets the logs of {@code dataDirs} (each member's dataDir, as {@link ZkEnsemble#dataDirs()}).
     *
     * @param wallMsAtStart {@link System#currentTimeMillis()} at the run's start, taken together with
     * @param nanoAtStart {@link System#nanoTime()}: the pair maps ZooKeeper's wall-clock txn times onto nanoTime
     */
    public static ZkTxnHistory read(List<Path> dataDirs, long wallMsAtStart, long nanoAtStart) {
        if (dataDirs.isEmpty()) {
            throw new IllegalArgumentException("no dataDirs to read transaction logs from");
        }
        List<List<ZkTxn>> logs = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        int undecodable = 0;
        for (Path dataDir : dataDirs) {
            TxnLogReader.LogRead read;
            try {
                read = TxnLogReader.read(dataDir);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the transaction logs of " + dataDir, e);
            }
            logs.add(read.txns());
            undecodable += read.undecodable();
            read.problems().forEach(p -> problems.add(dataDir + ": " + p));
        }
        Union union = union(logs);
        TxnInterpreter.Result result = TxnInterpreter.interpret(union.committed(), wallMsAtStart, nanoAtStart);
        return new ZkTxnHistory(union.committed(), union.discarded(), result, undecodable, problems);
    }

    /** The transactions held by a majority of logs, and those held by fewer. */
    record Union(List<ZkTxn> committed, List<ZkTxn> discarded) {}

    /** Merges logs by zxid, counting how many hold each transaction; a majority of {@code logs.size()} commits. */
    static Union union(List<List<ZkTxn>> logs) {
        Map<Long, ZkTxn> byZxid = new TreeMap<>();
        for (List<ZkTxn> log : logs) {
            Set<Long> inThisLog = new HashSet<>();
            for (ZkTxn txn : log) {
                if (!inThisLog.add(txn.zxid())) {
                    continue; // a log counts once for each zxid
                }
                ZkTxn seen = byZxid.get(txn.zxid());
                if (seen != null && !sameProposal(seen, txn)) {
                    throw new IllegalStateException("two logs disagree about zxid 0x" + Long.toHexString(txn.zxid())
                            + ": " + seen + " and " + txn);
                }
                byZxid.put(txn.zxid(), txn.withLogs(seen == null ? 1 : seen.logs() + 1));
            }
        }
        int majority = logs.size() / 2 + 1;
        List<ZkTxn> committed = new ArrayList<>();
        List<ZkTxn> discarded = new ArrayList<>();
        for (ZkTxn txn : byZxid.values()) {
            (txn.logs() >= majority ? committed : discarded).add(txn);
        }
        return new Union(committed, discarded);
    }

    private static boolean sameProposal(ZkTxn a, ZkTxn b) {
        return a.session() == b.session() && a.timeMs() == b.timeMs() && a.type().equals(b.type())
                && a.error() == b.error() && a.paths().equals(b.paths());
    }

    /** Elected, Written, OffsetRead and OwnerRead entries, in zxid order, with strictly increasing nanoTimes. */
    public List<Entry> entries() {
        return entries;
    }

    /** Every committed transaction in zxid order, failed ones included (marked), for reports. */
    public List<ZkTxn> txns() {
        return txns;
    }

    /** Transactions logged by fewer than a majority of members: proposals that never committed. */
    public List<ZkTxn> discarded() {
        return discarded;
    }

    /** Log records that could not be read or decoded. */
    public int undecodable() {
        return undecodable;
    }

    /** Committed coordinator, offset or owner values the project's codec refused (skipped). */
    public int garbageValues() {
        return garbageValues;
    }

    /** Writes under {@code /consumers/groups} by sessions that never held the election node (not coordinators). */
    public int foreignGroupWrites() {
        return foreignGroupWrites;
    }

    /** What went wrong reading, one line each. */
    public List<String> problems() {
        return problems;
    }

    /** One line for a report. */
    public String summary() {
        return txns.size() + " committed transactions, " + discarded.size() + " uncommitted, " + entries.size()
                + " entries, " + undecodable + " undecodable records, " + garbageValues + " garbage values, "
                + foreignGroupWrites + " non-coordinator group writes";
    }

    @Override
    public String toString() {
        return "ZkTxnHistory(" + summary() + ")";
    }
}
