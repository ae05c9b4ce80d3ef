package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;
import shepherd.coordination.Coordinator;
import shepherd.coordination.GroupSnapshot;
import shepherd.protocol.FrameCodec;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.Message;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;

class WarmupTest {
    @Test
    void aRoundTakesOverRebalancesAndHandsOverAgain() {
        List<Message> seen = new ArrayList<>();
        CoreRig rig = Warmup.round(new FrameCodec(), seen::add);
        assertEquals(Coordinator.Role.CLOSED, rig.core.role(), "the round ends with its own handover");
        // Loaded at generation 1; the members' return, a leave and a join: three runs, the last one starting 4.
        assertEquals(4, seen.stream().filter(StartRequest.class::isInstance).map(StartRequest.class::cast)
                .mapToInt(StartRequest::generation).max().orElseThrow());
        List<Message> requests = seen.stream().filter(shepherd.protocol.Request.class::isInstance).toList();
        assertTrue(requests.get(requests.size() - 1) instanceof StopRequest, "the handover's Stops come last");
    }

    @Test
    void everyMessageOfARoundGoesThroughTheWireCodec() {
        GroupSnapshot recorded = Warmup.recordedGroup();
        CoreRig rig = new CoreRig(Warmup.PARTITIONS, recorded, true);
        List<Message> seen = new ArrayList<>();
        rig.onMessage = seen::add;
        for (long c = 1; c <= Warmup.MEMBERS; c++) {
            rig.join(c);
        }
        assertEquals(Coordinator.Role.ACTIVE, rig.core.role(), "the grace ended once every recorded member was back");
        assertEquals(recorded.owners(), rig.core.group(CoreRig.GROUP).orElseThrow().owners(),
                "the recorded owners are those the group's own rebalance gave: the takeover's run keeps them");
        rig.pingDue(1);
        rig.answerPing(1, rig.generation());
        rig.leave(2);
        for (Class<?> kind : List.of(RegisterRequest.class, RegisterResponse.class, StopRequest.class,
                StartRequest.class, StartResponse.class, PingRequest.class, PingResponse.class, LeaveRequest.class,
                LeaveResponse.class)) {
            assertTrue(seen.stream().anyMatch(kind::isInstance), kind.getSimpleName() + " in " + seen);
        }
        assertTrue(seen.stream().anyMatch(m -> m instanceof StopResponse r && r.offsets() != null
                && !r.offsets().isEmpty()), "a Stop answer reports the offsets of what its member fetched: " + seen);
    }

    @Test
    void theLoopsPartFiresEveryKindOfTimer() throws Exception {
        ScheduledExecutorService timerThread = Executors.newSingleThreadScheduledExecutor();
        try {
            assertEquals(Warmup.TIMERS.length, Warmup.loopRound(timerThread, new BrokerMetrics(0)));
        } finally {
            timerThread.shutdownNow();
        }
    }

    @Test
    void theBudgetBoundsTheRounds() {
        assertEquals(0, Warmup.run(0));
        assertTrue(Warmup.run(1) >= 1, "at least one round once there is a budget");
    }
}
