package shepherd.cli.demo;

/**
 * One rebalance of a group as its members lived it: from the first poll at which the group was no longer settled
 * (a member stopped fetching, or a new member registered) to the first poll at which every live member was fetching
 * again under one new (epoch, generation).
 *
 * @param cause the last scripted event before it started ("initial join" for the first)
 */
public record Rebalance(String group, String cause, int fromEpoch, int fromGeneration, int epoch, int generation,
                        long startMs, long durationMs) {

    String describe() {
        String from = fromGeneration < 0 ? "-" : (fromEpoch != epoch ? "e" + fromEpoch + "/" : "") + "g" + fromGeneration;
        String to = (fromEpoch != epoch ? "e" + epoch + "/" : "") + "g" + generation;
        return String.format("%s %s -> %s in %s (after: %s)", group, from, to, Summary.ms(durationMs), cause);
    }
}
