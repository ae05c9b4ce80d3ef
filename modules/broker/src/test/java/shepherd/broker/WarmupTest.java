package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import shepherd.coordination.Coordinator;
import shepherd.protocol.FrameCodec;
import shepherd.protocol.Message;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StopRequest;

class WarmupTest {
    @Test
    void aRoundTakesOverRebalancesAndHandsOverAgain() {
        List<Message> seen = new ArrayList<>();
        CoreRig rig = Warmup.round(new FrameCodec(), seen::add);
        assertEquals(Coordinator.Role.CLOSED, rig.core.role(), "the round ends with its own handover");
        // Loaded at generation 1; the members' return, a leave and a join: three runs, the last one starting 4.
        assertEquals(4, seen.stream().filter(StartRequest.class::isInstance).map(StartRequest.class::cast)
                .mapToInt(StartRequest::generation).max().orElseThrow());
        assertTrue(seen.get(seen.size() - 1) instanceof StopRequest, "the handover's Stops come last: " + seen);
    }

    @Test
    void everyMessageOfARoundGoesThroughTheWireCodec() {
        CoreRig rig = new CoreRig(Warmup.PARTITIONS, Warmup.recordedGroup(), true);
        List<Message> seen = new ArrayList<>();
        rig.onMessage = seen::add;
        for (long c = 1; c <= Warmup.MEMBERS; c++) {
            rig.join(c);
        }
        assertTrue(seen.stream().anyMatch(StopRequest.class::isInstance), seen.toString());
        assertTrue(seen.stream().anyMatch(StartRequest.class::isInstance), seen.toString());
        assertEquals(Coordinator.Role.ACTIVE, rig.core.role(), "the grace ended once every recorded member was back");
    }

    @Test
    void theBudgetBoundsTheRounds() {
        assertEquals(0, Warmup.run(0));
        assertTrue(Warmup.run(1) >= 1, "at least one round once there is a budget");
    }
}
