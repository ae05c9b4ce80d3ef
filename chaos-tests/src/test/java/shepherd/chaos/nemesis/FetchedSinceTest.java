package shepherd.chaos.nemesis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import shepherd.chaos.history.Entry;

/**
 * Which victims of a cut-off or pause the ConsumerSelfFences check judges: a consumer that fetched something from the
 * fault's start on, and only such a one.
 */
class FetchedSinceTest {
    private static final long FROM = 1_000;

    private static Entry started(String consumer, String partition, long at) {
        return new Entry.FetchStarted(at, "g", consumer, "t", partition, 1, 1, 0);
    }

    private static Entry stopped(String consumer, String partition, long at) {
        return new Entry.FetchStopped(at, "g", consumer, "t", partition, 1, 1, 0);
    }

    @Test
    void aVictimFetchingWhenTheFaultBeganIsJudged() {
        assertTrue(Nemeses.fetchedSince(List.of(started("c4", "0", 10)), "c4", FROM));
        assertTrue(Nemeses.fetchedSince(List.of(started("c4", "0", 10), started("c4", "1", 20),
                stopped("c4", "0", 30)), "c4", FROM), "one partition still fetched");
    }

    @Test
    void aVictimThatStartedAfterTheFaultBeganIsJudged() {
        assertTrue(Nemeses.fetchedSince(List.of(started("c4", "0", 10), stopped("c4", "0", 900),
                started("c4", "0", FROM + 5)), "c4", FROM));
    }

    @Test
    void aVictimStoppedBeforeTheFaultBeganAndIdleSinceIsNot() {
        // The CI run that showed the race: stopped by a rebalance 200 ms before the cut.
        assertFalse(Nemeses.fetchedSince(List.of(started("c4", "0", 10), started("c4", "1", 10),
                stopped("c4", "0", 800), stopped("c4", "1", 800)), "c4", FROM));
        assertFalse(Nemeses.fetchedSince(List.of(), "c4", FROM), "never fetched");
    }

    @Test
    void otherConsumersEventsDoNotCount() {
        assertFalse(Nemeses.fetchedSince(List.of(started("c4", "0", 10), stopped("c4", "0", 800),
                started("c1", "0", 900), started("c1", "1", FROM + 5)), "c4", FROM));
    }
}
