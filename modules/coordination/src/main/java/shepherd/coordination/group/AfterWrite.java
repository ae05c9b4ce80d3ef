package shepherd.coordination.group;

import java.util.List;
import shepherd.protocol.PartitionResult;

/**
 * What waits for a group's writes to be durable: a value the group holds in its write pipeline until everything
 * queued before it has committed ({@code ok}) or definitely failed, then resumes ({@link Groups#resume}, or the
 * handover's for the last two). Values rather than lambdas so that a test, a status page or {@code describe} can
 * see what a group is waiting for.
 */
public sealed interface AfterWrite {

    /** A line for {@code describe}: what is waiting. */
    String describe();

    /**
     * Answer a Register once its registration is durable. {@code joined}: the member's first answer on this
     * connection, which also starts its pings and lets the group rebalance; otherwise a repeated Register whose
     * first answer was lost, answered again and nothing else.
     */
    record AnswerRegister(Member member, long connectionId, int correlationId, boolean joined) implements AfterWrite {
        @Override
        public String describe() {
            return "answer Register of '" + member.consumerId + "'";
        }
    }

    /** Answer an OffsetCommit once its offsets are durable; its per-partition results were decided on arrival. */
    record AnswerCommit(long connectionId, int correlationId, List<PartitionResult> results) implements AfterWrite {
        public AnswerCommit {
            results = List.copyOf(results);
        }

        @Override
        public String describe() {
            return "answer OffsetCommit on connection " + connectionId;
        }
    }

    /** Answer a Leave once the removal and the last offsets are durable. */
    record AnswerLeave(long connectionId, int correlationId) implements AfterWrite {
        @Override
        public String describe() {
            return "answer Leave on connection " + connectionId;
        }
    }

    /** Issue the re-read of a group that has been empty once its own writes are out of the way. */
    record ReloadOffsets(GroupState group) implements AfterWrite {
        @Override
        public String describe() {
            return "re-read the offsets of '" + group.id + "'";
        }
    }

    /** Send the Starts of {@code run} once its owners multi committed; end the run if it failed. */
    record StartRun(Run run) implements AfterWrite {
        @Override
        public String describe() {
            return "send Start(" + run.newGeneration() + ")";
        }
    }

    /** Graceful handover: look again whether every group's writes are durable, then record the handover. */
    record HandOverWhenDurable(boolean deadlinePassed) implements AfterWrite {
        @Override
        public String describe() {
            return "hand over once every group's writes are durable";
        }
    }

    /** Graceful handover: the handover record of {@code epoch} is written; resign and let the members go. */
    record FinishHandover(int epoch) implements AfterWrite {
        @Override
        public String describe() {
            return "finish the handover of epoch " + epoch;
        }
    }
}
