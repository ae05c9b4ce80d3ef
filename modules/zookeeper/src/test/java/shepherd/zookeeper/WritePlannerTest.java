package shepherd.zookeeper;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.junit.jupiter.api.Test;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.ZkOp;
import shepherd.coordination.assign.StreamId;
import shepherd.coordination.assign.TopicPartition;

class WritePlannerTest {
    private static final TopicPartition TP = TopicPartition.of("t", "1-0");

    @Test
    void missingNodesAndParentsAreCreatedAfterTheCheck() {
        CoordinatorEffect.Write w = new CoordinatorEffect.Write(1, 7, true,
                List.of(new ZkOp.PutOwner("g", TP, new StreamId("c", 0), 3)));
        List<List<Op>> parts = plan(w, Set.of("/consumers", "/consumers/groups")::contains, 1 << 20);
        assertEquals(1, parts.size());
        assertEquals(List.of("check /consumers/epoch", "create /consumers/groups/g",
                "create /consumers/groups/g/owners", "create /consumers/groups/g/owners/t",
                "create /consumers/groups/g/owners/t/1-0"), describe(parts.get(0)));
    }

    @Test
    void existingNodesAreOverwrittenAndDeletesOfMissingNodesDropped() {
        String owner = ZkPaths.owner("g", TP);
        CoordinatorEffect.Write w = new CoordinatorEffect.Write(1, 7, true, List.of(
                new ZkOp.PutOwner("g", TP, new StreamId("c", 0), 3),
                new ZkOp.DeleteOwner("g", TopicPartition.of("t", "1-1")),
                new ZkOp.DeleteOwner("g", TP)));
        List<List<Op>> parts = plan(w, path -> path.equals(owner) || owner.startsWith(path + "/"), 1 << 20);
        assertEquals(List.of("check /consumers/epoch", "setData " + owner, "delete " + owner),
                describe(parts.get(0)));
    }

    @Test
    void bigWritesAreSplitEachPartFencedAndHandoverLast() {
        List<ZkOp> ops = new ArrayList<>();
        ops.add(new ZkOp.PutHandover(7));
        for (int i = 0; i < 100; i++) {
            ops.add(new ZkOp.PutOffset("g", TopicPartition.of("t", "1-" + i), i, "c"));
        }
        CoordinatorEffect.Write w = new CoordinatorEffect.Write(1, 7, true, ops);
        List<List<Op>> parts = plan(w, path -> true, 2_000);
        assertTrue(parts.size() > 3, "parts: " + parts.size());
        int total = 0;
        for (List<Op> part : parts) {
            assertEquals(OpCode.check, part.get(0).getType());
            total += part.size() - 1;
        }
        assertEquals(101, total);
        List<Op> last = parts.get(parts.size() - 1);
        assertEquals("setData /consumers/epoch", describe(last).get(last.size() - 1));
    }

    @Test
    void unfencedWritesHaveNoCheck() {
        CoordinatorEffect.Write w = new CoordinatorEffect.Write(1, 7, false,
                List.of(new ZkOp.PutGroup("g", 1, "range")));
        assertEquals(List.of(List.of("setData /consumers/groups/g")),
                plan(w, path -> true, 1 << 20).stream().map(WritePlannerTest::describe).toList());
    }

    @Test
    void probesAreEveryTouchedNodeAndEveryAncestorOnceInOrder() {
        List<ZkOp> ops = List.of(
                new ZkOp.PutOwner("g", TP, new StreamId("c", 0), 3),
                new ZkOp.PutOwner("g", TopicPartition.of("t", "1-1"), new StreamId("c", 0), 3),
                new ZkOp.DeleteOwner("g", TopicPartition.of("u", "0-0")),
                new ZkOp.DeleteRegistration("h", "c"),
                new ZkOp.PutHandover(7));
        assertEquals(List.of("/consumers/groups/g/owners/t/1-0", "/consumers/groups/g/owners/t",
                "/consumers/groups/g/owners", "/consumers/groups/g", "/consumers/groups", "/consumers",
                "/consumers/groups/g/owners/t/1-1", "/consumers/groups/g/owners/u/0-0", "/consumers/groups/g/owners/u",
                ZkPaths.registration("h", "c"), ZkPaths.parent(ZkPaths.registration("h", "c")), "/consumers/groups/h"),
                List.copyOf(WritePlanner.probes(WritePlanner.targets(ops))));
    }

    @Test
    void ownersOfOneMemberAndGenerationAreEncodedOnceAndShared() {
        List<ZkOp> ops = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ops.add(new ZkOp.PutOwner("g", TopicPartition.of("t", "1-" + i), new StreamId("c", i % 2), 3));
        }
        List<Op> part = plan(new CoordinatorEffect.Write(1, 7, true, ops), path -> true, 1 << 20)
                .get(0);
        byte[][] data = part.stream().skip(1).map(op -> op.toRequestRecord())
                .map(r -> ((org.apache.zookeeper.proto.SetDataRequest) r).getData()).toArray(byte[][]::new);
        assertArrayEquals(ZnodeCodec.encodeOwner(new ZnodeCodec.OwnerValue(new StreamId("c", 0), 3)), data[0]);
        assertArrayEquals(ZnodeCodec.encodeOwner(new ZnodeCodec.OwnerValue(new StreamId("c", 1), 3)), data[1]);
        assertTrue(data[0] == data[2] && data[1] == data[3], "one array per member and generation");
    }

    @Test
    void opSizesCountUtf8BytesWithoutEncoding() {
        for (String s : List.of("", "/consumers/groups/g", "/t/\u00e9\u00df", "/\u4e2d\u6587", "/\ud83d\ude00x")) {
            assertEquals(s.getBytes(StandardCharsets.UTF_8).length, WritePlanner.utf8Length(s), s);
        }
        assertTrue(WritePlanner.utf8Length("\ud83d") >= "\ud83d".getBytes(StandardCharsets.UTF_8).length,
                "an unpaired surrogate is never under-counted");
    }

    @Test
    void targetsAreZkPathsEvenWhenGroupOrTopicChangesBetweenOps() {
        TopicPartition u = TopicPartition.of("u", "1-0");
        List<ZkOp> ops = List.of(
                new ZkOp.PutOwner("g", TP, new StreamId("c", 0), 3),
                new ZkOp.PutOwner("h", TP, new StreamId("c", 0), 3),
                new ZkOp.DeleteOwner("h", u),
                new ZkOp.PutOffset("h", u, 5, "c"),
                new ZkOp.PutOffset("g", u, 5, "c"),
                new ZkOp.DeleteOwner("g", TP),
                new ZkOp.PutGroup("g", 1, "range"),
                new ZkOp.PutHandover(7),
                new ZkOp.DeleteRegistration("g", "c"));
        List<String> expected = new ArrayList<>(List.of(ZkPaths.owner("g", TP), ZkPaths.owner("h", TP),
                ZkPaths.owner("h", u), ZkPaths.offset("h", u), ZkPaths.offset("g", u), ZkPaths.owner("g", TP),
                ZkPaths.group("g")));
        expected.add(null);
        expected.add(ZkPaths.registration("g", "c"));
        assertEquals(expected, WritePlanner.targets(ops));
    }

    @Test
    void targetsOfAnotherWriteAreRefused() {
        CoordinatorEffect.Write w = new CoordinatorEffect.Write(1, 7, true,
                List.of(new ZkOp.PutGroup("g", 1, "range")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WritePlanner.plan(w, List.of(), 1, path -> true, 1 << 20));
        assertEquals("targets of 0 ops for a write of 1 ops (writeId 1)", e.getMessage());
    }

    private static List<List<Op>> plan(CoordinatorEffect.Write w, Predicate<String> exists, int multiBytesMax) {
        return WritePlanner.plan(w, WritePlanner.targets(w.ops()), 1, exists, multiBytesMax);
    }

    private static List<String> describe(List<Op> ops) {
        return ops.stream().map(op -> switch (op.getType()) {
            case OpCode.check -> "check " + op.getPath();
            case OpCode.create -> "create " + op.getPath();
            case OpCode.setData -> "setData " + op.getPath();
            case OpCode.delete -> "delete " + op.getPath();
            default -> op.getType() + " " + op.getPath();
        }).toList();
    }
}
