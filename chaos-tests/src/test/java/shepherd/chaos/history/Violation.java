package shepherd.chaos.history;

/** What a checker found: the invariant's DESIGN §7 name and the entries that break it, in words. */
public record Violation(String invariant, String detail) {
    @Override
    public String toString() {
        return invariant + ": " + detail;
    }
}
