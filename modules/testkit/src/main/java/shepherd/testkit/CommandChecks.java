package shepherd.testkit;

import java.util.Set;

/**
 * {@link Invariant#NoStaleCommandApplied}, judged where a consumer applies a command: never one of an epoch below
 * the highest it had seen, and a Start only when it was stopped for the generation the Start follows.
 */
final class CommandChecks {
    private static final Set<String> COMMAND_KINDS = Set.of("Ping", "Stop", "Start");

    private final ViolationLog log;

    CommandChecks(ViolationLog log) {
        this.log = log;
    }

    void commandApplied(String instance, String kind, int epoch, int highestEpochSeenBefore, int generation,
            boolean stoppedForPreviousGeneration, long nowMs) {
        ObservationCheck check = log.check("commandApplied", nowMs).id("instance", instance).id("kind", kind)
                .nonNegative("epoch", epoch).nonNegative("generation", generation);
        if (kind != null && !COMMAND_KINDS.contains(kind)) {
            check.problem("kind is " + kind + ", not Ping, Stop or Start");
        }
        if (highestEpochSeenBefore < -1) {
            check.problem("highestEpochSeenBefore is " + highestEpochSeenBefore + " < -1");
        }
        if (!check.ok()) {
            return;
        }
        if (epoch < highestEpochSeenBefore) {
            log.record(Invariant.NoStaleCommandApplied, nowMs, instance + " applied " + kind + " of epoch " + epoch
                    + " (generation " + generation + ") after seeing epoch " + highestEpochSeenBefore);
        }
        if (kind.equals("Start") && !stoppedForPreviousGeneration) {
            log.record(Invariant.NoStaleCommandApplied, nowMs, instance + " applied Start of generation "
                    + generation + " (epoch " + epoch + ") without being stopped for the generation it follows");
        }
    }
}
