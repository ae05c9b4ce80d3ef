package shepherd.testkit;

/**
 * Collects one observation's domain problems (a null id, a negative number, a time that goes back); {@link #ok}
 * records them as one {@link Invariant#TypeOK} violation, so a bad observation is reported, never thrown, and then
 * ignored.
 */
final class ObservationCheck {
    private final ViolationLog log;
    private final String observation;
    private final long nowMs;
    private StringBuilder problems;

    ObservationCheck(ViolationLog log, String observation, long nowMs) {
        this.log = log;
        this.observation = observation;
        this.nowMs = nowMs;
    }

    ObservationCheck id(String name, String value) {
        if (value == null) {
            problem(name + " is null");
        }
        return this;
    }

    ObservationCheck nonNegative(String name, long value) {
        if (value < 0) {
            problem(name + " is " + value + " < 0");
        }
        return this;
    }

    void problem(String problem) {
        if (problems == null) {
            problems = new StringBuilder(observation).append(": ");
        } else {
            problems.append("; ");
        }
        problems.append(problem);
    }

    /** Records the problems, if any; checks the time too. Returns whether the observation may be processed. */
    boolean ok() {
        long lastNowMs = log.lastNowMs();
        if (nowMs < 0) {
            problem("nowMs is " + nowMs + " < 0");
        } else if (nowMs < lastNowMs) {
            problem("time went back from " + lastNowMs + " ms to " + nowMs + " ms");
        }
        if (problems != null) {
            log.record(Invariant.TypeOK, nowMs, problems.toString());
            return false;
        }
        log.taken(nowMs);
        return true;
    }
}
