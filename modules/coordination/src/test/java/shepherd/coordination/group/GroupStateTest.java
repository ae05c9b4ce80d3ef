package shepherd.coordination.group;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import shepherd.coordination.Registration;
import shepherd.coordination.TriggerState;
import shepherd.coordination.ZkOp;
import shepherd.coordination.assign.PartitionId;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.TopicStreams;

/**
 * The write queue of one group: ops waiting behind the write in flight are compacted by the node they write, so the
 * next multi writes each node once (a multi that deleted an owner and then set it would fail on the missing node,
 * one that set it and then deleted it would lose the new owner).
 */
class GroupStateTest {
    private static final String G = "g";
    private static final Registration REGISTRATION = new Registration(new StaticSubscription(List.of(
            new TopicStreams("t", 1))), true, OffsetReset.SMALLEST, 1_000, (short) 3);

    private static TopicPartition tp(String topic, int n) {
        return new TopicPartition(topic, new PartitionId(1, n));
    }

    private static List<ZkOp> queued(GroupState g) {
        return List.copyOf(g.queued.values());
    }

    @Test
    void opsOnOneNodeLeaveOnlyTheLast() {
        GroupState g = new GroupState(G, "range");
        g.queue(new ZkOp.DeleteOwner(G, tp("t", 0)));
        g.queue(new ZkOp.PutOwner(G, tp("t", 0), new StreamId("a", 0), 2));
        g.queue(new ZkOp.PutRegistration(G, "a", REGISTRATION));
        g.queue(new ZkOp.DeleteRegistration(G, "a"));
        g.queue(new ZkOp.PutGroup(G, 2, "range"));
        g.queue(new ZkOp.PutGroup(G, 3, "range"));
        assertEquals(List.of(new ZkOp.PutOwner(G, tp("t", 0), new StreamId("a", 0), 2),
                new ZkOp.DeleteRegistration(G, "a"), new ZkOp.PutGroup(G, 3, "range")), queued(g));
    }

    @Test
    void opsOnDifferentNodesAreAllKept() {
        GroupState g = new GroupState(G, "range");
        List<ZkOp> ops = List.of(
                new ZkOp.PutOwner(G, tp("t", 0), new StreamId("a", 0), 2),
                new ZkOp.PutOwner(G, tp("t", 1), new StreamId("a", 0), 2),
                new ZkOp.PutOwner(G, tp("u", 0), new StreamId("a", 0), 2), // same partition id, another topic
                new ZkOp.PutOffset(G, tp("t", 0), 7, "a"), // same partition, another kind of node
                new ZkOp.DeleteRegistration(G, "a"),
                new ZkOp.DeleteRegistration(G, "b"),
                new ZkOp.PutGroup(G, 2, "range"));
        ops.forEach(g::queue);
        assertEquals(ops, queued(g));
    }

    @Test
    void twoReportsOfOnePartitionKeepTheHigherOffsetAndTheFloorSeesIt() {
        GroupState g = new GroupState(G, "range");
        g.offsets.put(tp("t", 0), 3L);
        g.queue(new ZkOp.PutOffset(G, tp("t", 0), 10, "a"));
        g.queue(new ZkOp.PutOffset(G, tp("t", 0), 5, "a"));
        assertEquals(List.of(new ZkOp.PutOffset(G, tp("t", 0), 10, "a")), queued(g));
        assertEquals(10, g.offsetFloor(tp("t", 0)));
        assertEquals(Long.MIN_VALUE, g.offsetFloor(tp("t", 1)));

        // Sent: the floor now comes from the write in flight, then from the mirror once it committed.
        g.inFlight = new GroupState.Write(1, queued(g), List.of());
        g.queued.clear();
        g.queue(new ZkOp.PutOffset(G, tp("t", 1), 4, "a"));
        assertEquals(10, g.offsetFloor(tp("t", 0)));
        assertEquals(4, g.offsetFloor(tp("t", 1)));
    }

    /**
     * The copy-free {@link GroupState#stable()} a runtime asks after every run says what the view's does, for every
     * trigger state and every member connected or not, started in this generation or not (runs in flight are
     * covered by the stateful properties).
     */
    @Test
    void stableWithoutACopyAgreesWithTheView() {
        for (TriggerState trigger : TriggerState.values()) {
            for (int state = 0; state < 16; state++) {
                GroupState g = new GroupState(G, "range");
                g.generation = 3;
                g.trigger = trigger;
                for (int i = 0; i < 2; i++) {
                    Member m = new Member("m" + i, REGISTRATION);
                    m.connectionId = (state >> (2 * i) & 1) == 1 ? 10 + i : Member.NO_CONNECTION;
                    m.startedGeneration = (state >> (2 * i + 1) & 1) == 1 ? 3 : 2;
                    g.members.put(m.consumerId, m);
                }
                assertEquals(Describe.view(g).stable(), g.stable(), trigger + " " + state);
                assertEquals(trigger == TriggerState.IDLE && state == 15, g.stable(), trigger + " " + state);
            }
            GroupState empty = new GroupState(G, "range");
            empty.trigger = trigger;
            assertEquals(Describe.view(empty).stable(), empty.stable(), "no members, " + trigger);
        }
    }
}
