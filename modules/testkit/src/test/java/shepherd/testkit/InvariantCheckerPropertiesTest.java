package shepherd.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * ExclusiveOwnership and BarrierSound over random hand-off histories of one partition: a history that follows the
 * protocol (Start only after the previous owner stopped or its lease ran out) is always accepted, and the same
 * history with one hand-off done too early is always caught.
 */
class InvariantCheckerPropertiesTest {
    private static final long LEASE = 50;
    private static final List<String[]> PARTITION = List.<String[]>of(new String[] {"t", "0-0"});

    /** One owner's tenure: who, how many renewals (each before the lease runs out), and how it ends. */
    record Tenure(int consumer, int renewals, int renewalGap, boolean stops, int idle) {}

    @Provide
    Arbitrary<Tenure> tenures() {
        return Combinators.combine(
                        Arbitraries.integers().between(0, 3),
                        Arbitraries.integers().between(0, 3),
                        Arbitraries.integers().between(1, (int) LEASE),
                        Arbitraries.of(true, false),
                        Arbitraries.integers().between(0, 20))
                .as(Tenure::new);
    }

    @Property
    void protocolFollowingHandOffsAreAccepted(@ForAll @Size(min = 1, max = 30) List<@From("tenures") Tenure> history) {
        InvariantChecker checker = new InvariantChecker();
        play(checker, history, -1);
        assertTrue(checker.ok(), () -> checker.violations().toString());
    }

    @Property
    void anEarlyHandOffIsCaught(
            @ForAll @Size(min = 2, max = 30) List<@From("tenures") Tenure> history, @ForAll @IntRange(min = 1) int pick) {
        int early = 1 + pick % (history.size() - 1);
        InvariantChecker checker = new InvariantChecker();
        play(checker, history, early);
        boolean sameConsumer = history.get(early).consumer() == history.get(early - 1).consumer();
        assertTrue(checker.violations().stream().anyMatch(v -> v.invariant() == Invariant.ExclusiveOwnership),
                () -> checker.violations().toString());
        assertTrue(sameConsumer
                        || checker.violations().stream().anyMatch(v -> v.invariant() == Invariant.BarrierSound),
                () -> checker.violations().toString());
    }

    /** Plays the history; tenure {@code early} is started while its predecessor still fetches under lease. */
    private static void play(InvariantChecker checker, List<Tenure> history, int early) {
        long now = 0;
        int[] incarnations = new int[4];
        long previousDeadline = 0;
        for (int i = 0; i < history.size(); i++) {
            Tenure tenure = history.get(i);
            String consumer = "c" + tenure.consumer();
            String instance = consumer + "#" + (++incarnations[tenure.consumer()]);
            if (i == early) {
                now = previousDeadline - 1; // predecessor neither stopped nor expired
            }
            checker.startSent("b1#1", 1, "g", consumer, PARTITION, now);
            long deadline = now + LEASE;
            checker.fetchStarted(instance, consumer, "g", "t", "0-0", now, deadline);
            if (i == early) {
                return;
            }
            for (int r = 0; r < tenure.renewals(); r++) {
                now += tenure.renewalGap();
                deadline = now + LEASE;
                checker.leaseRenewed(instance, now, deadline);
            }
            if (i + 1 == early) {
                // keeps fetching: neither stops nor lets its lease run out before its successor starts
            } else if (tenure.stops()) {
                now += tenure.idle() % LEASE; // stops while leased; the Start waits for the acknowledgement
                checker.fetchStopped(instance, "g", "t", "0-0", now);
            } else {
                now = deadline + tenure.idle(); // the lease runs out; the Start waits for it
            }
            previousDeadline = deadline;
        }
    }
}
