package shepherd.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A member's stop stamps: the first and last at or after an instant, as a walk over every stamp would find them. */
class StampsTest {
    @Test
    void findsTheFirstAndLastSinceAnInstant() {
        Stamps s = new Stamps();
        assertEquals(OptionalLong.empty(), s.firstSince(0));
        assertEquals(OptionalLong.empty(), s.lastSince(0));
        for (long t : new long[] {10, 20, 30}) {
            s.add(t);
        }
        assertEquals(OptionalLong.of(10), s.firstSince(5));
        assertEquals(OptionalLong.of(20), s.firstSince(20), "a stamp at the instant counts");
        assertEquals(OptionalLong.of(30), s.firstSince(21));
        assertEquals(OptionalLong.empty(), s.firstSince(31));
        assertEquals(OptionalLong.of(30), s.lastSince(30));
        assertEquals(OptionalLong.empty(), s.lastSince(31));
    }

    @Test
    void ordersByNanoTimeDifferencesAcrossTheWrap() {
        Stamps s = new Stamps();
        s.add(Long.MAX_VALUE - 5);
        s.add(Long.MIN_VALUE + 5); // 11 ns later, past the wrap
        assertEquals(OptionalLong.of(Long.MIN_VALUE + 5), s.firstSince(Long.MAX_VALUE));
        assertEquals(OptionalLong.of(Long.MIN_VALUE + 5), s.lastSince(Long.MAX_VALUE - 5));
    }

    @Test
    void agreesWithAWalkOverEveryStampWhateverTheArrivalOrder() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            List<Long> all = new ArrayList<>();
            Stamps s = new Stamps();
            int n = random.nextInt(60);
            for (int i = 0; i < n; i++) {
                long t = 1_000 + random.nextInt(500); // in no order: events may be handed over late
                all.add(t);
                s.add(t);
            }
            assertEquals(n, s.size());
            for (long since = 990; since <= 1_510; since += 7) {
                long from = since;
                assertEquals(walk(all, from, true), s.firstSince(from), "first since " + from + " of " + all);
                assertEquals(walk(all, from, false), s.lastSince(from), "last since " + from + " of " + all);
            }
        }
    }

    private static OptionalLong walk(List<Long> all, long since, boolean first) {
        var at = all.stream().mapToLong(Long::longValue).filter(t -> t - since >= 0);
        return first ? at.min() : at.max();
    }
}
