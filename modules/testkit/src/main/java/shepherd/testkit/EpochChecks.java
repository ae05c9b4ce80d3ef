package shepherd.testkit;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * {@link Invariant#OneCoordinatorPerEpoch}: the first broker incarnation seen with an epoch (winning it, bumping it
 * in ZooKeeper, or commanding with it) owns it, and any other incarnation that uses it breaks the invariant.
 */
final class EpochChecks {
    private final ViolationLog log;
    private final Map<Integer, String> incarnationByEpoch = new HashMap<>();
    private final Set<String> reportedEpochConflicts = new HashSet<>();

    EpochChecks(ViolationLog log) {
        this.log = log;
    }

    void commandSent(String brokerIncarnation, int epoch, long nowMs) {
        if (log.check("commandSent", nowMs).id("brokerIncarnation", brokerIncarnation).nonNegative("epoch", epoch)
                .ok()) {
            claim(brokerIncarnation, epoch, nowMs, "sent a command");
        }
    }

    void electionWon(String brokerIncarnation, int epoch, long nowMs) {
        if (!log.check("electionWon", nowMs).id("brokerIncarnation", brokerIncarnation).nonNegative("epoch", epoch)
                .ok()) {
            return;
        }
        // Only the claim is judged here. The order in which brokers *learn* of their wins is not: a paused winner
        // learns of an older win after a newer broker won (it is deposed, and can command no one); the order of
        // the wins themselves is ZooKeeper's, judged in epochBumped.
        claim(brokerIncarnation, epoch, nowMs, "won the election");
    }

    /**
     * Gives {@code epoch} to {@code incarnation} if nobody has it; reports (once per epoch and incarnation) a use by
     * another incarnation. Returns whether the epoch is {@code incarnation}'s.
     */
    boolean claim(String incarnation, int epoch, long nowMs, String what) {
        String owner = incarnationByEpoch.putIfAbsent(epoch, incarnation);
        if (owner == null || owner.equals(incarnation)) {
            return true;
        }
        if (reportedEpochConflicts.add(epoch + "\u0000" + incarnation)) {
            log.record(Invariant.OneCoordinatorPerEpoch, nowMs,
                    "epoch " + epoch + " belongs to " + owner + " but " + incarnation + " " + what + " with it");
        }
        return false;
    }
}
