package shepherd.consumer.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionOffset;

/**
 * The offsets taken, per generation: a Start's reset leaves exactly its partitions, whatever an earlier and larger
 * generation held, and offsets only move forward within one.
 */
class TakenOffsetsTest {
    private final TakenOffsets taken = new TakenOffsets();

    @Test
    void aSmallGenerationAfterALargeOneHoldsOnlyItsOwnPartitionsInOrder() {
        List<PartitionAssignment> all = new ArrayList<>();
        for (int p = 0; p < 1024; p++) {
            all.add(new PartitionAssignment("t", String.format("1-%04d", p), p, 0));
        }
        taken.reset(all);
        assertEquals(1024, taken.snapshot().size());
        taken.reset(List.of(new PartitionAssignment("u", "1-1", 7, 0), new PartitionAssignment("t", "1-9", 3, 0),
                new PartitionAssignment("t", "1-2", -1, 0))); // no committed offset: unknown until initialized
        assertEquals(List.of(new PartitionOffset("t", "1-9", 3), new PartitionOffset("u", "1-1", 7)),
                taken.snapshot());
        assertEquals(-1, taken.next("t", "1-2"));
        assertEquals(-1, taken.next("t", "1-0003")); // the large generation's partitions are gone
        taken.initialize("t", "1-2", 5);
        taken.advance("t", "1-9", 4);
        taken.advance("t", "1-9", 2); // backwards: ignored
        assertEquals(List.of(new PartitionOffset("t", "1-2", 5), new PartitionOffset("t", "1-9", 4),
                new PartitionOffset("u", "1-1", 7)), taken.snapshot());
    }

    @Test
    void initializingDoesNotMoveAKnownOffset() {
        taken.reset(List.of(new PartitionAssignment("t", "1-0", 10, 0)));
        taken.initialize("t", "1-0", 0);
        assertEquals(10, taken.next("t", "1-0"));
    }
}
