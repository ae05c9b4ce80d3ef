package shepherd.zookeeper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs.Ids;
import org.junit.jupiter.api.Test;

class KnownNodesTest {
    private static final String G = "/consumers/groups/g";
    private final KnownNodes known = new KnownNodes();

    @Test
    void nothingIsKnownAtFirst() {
        assertNull(known.exists(G + "/owners/t/1-0"));
    }

    @Test
    void aPresentNodeHasPresentAncestors() {
        known.present(G + "/owners/t/1-0");
        assertEquals(Boolean.TRUE, known.exists(G + "/owners/t"));
        assertEquals(Boolean.TRUE, known.exists("/consumers/groups"));
        assertNull(known.exists(G + "/owners/t/1-1"), "a sibling of a known node is not known");
    }

    @Test
    void aListedParentMakesEveryOtherChildAbsent() {
        known.children(G + "/ids", List.of("c1", "c2"));
        assertEquals(Boolean.TRUE, known.exists(G + "/ids/c1"));
        assertEquals(Boolean.FALSE, known.exists(G + "/ids/c3"));
        known.children(G + "/ids", List.of("c2"));
        assertEquals(Boolean.FALSE, known.exists(G + "/ids/c1"), "gone from a newer list");
    }

    @Test
    void nothingExistsBelowAnAbsentNode() {
        known.present(G + "/offsets/t/1-0");
        known.absent(G + "/offsets");
        assertEquals(Boolean.FALSE, known.exists(G + "/offsets/t/1-0"));
        assertEquals(Boolean.FALSE, known.exists(G + "/offsets/u"));
        assertEquals(Boolean.TRUE, known.exists(G));
    }

    @Test
    void committedOpsAreRecordedAndDoubtedOnesForgotten() {
        String owner = G + "/owners/t/1-0";
        known.children(G + "/owners/t", List.of());
        known.applied(List.of(Op.check("/consumers/epoch", 3),
                Op.create(owner, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)));
        assertEquals(Boolean.TRUE, known.exists(owner));
        known.applied(List.of(Op.delete(owner, -1)));
        assertEquals(Boolean.FALSE, known.exists(owner));
        known.doubt(owner);
        assertNull(known.exists(owner), "neither the node nor its parent's list can be trusted");
        assertEquals(Boolean.TRUE, known.exists(G + "/owners/t"));
    }

    @Test
    void onlyTheGroupsSubtreeIsRecorded() {
        known.present("/brokers/ids/1");
        assertNull(known.exists("/brokers/ids/1"));
        assertEquals(0, known.size());
    }
}
