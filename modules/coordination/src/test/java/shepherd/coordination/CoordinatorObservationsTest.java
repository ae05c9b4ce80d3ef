package shepherd.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import shepherd.coordination.Coordinator.Role;
import shepherd.coordination.CoordinatorEffect.GenerationReached;
import shepherd.coordination.CoordinatorEffect.MemberRemoved;
import shepherd.coordination.CoordinatorEffect.RebalanceEnded;
import shepherd.coordination.CoordinatorTimer.PingDue;
import shepherd.protocol.LeaveRequest;

/**
 * What the core shows of itself without being polled: the role's legal transitions, the continuations a group
 * holds while its writes are in flight, and the observations a runtime logs and counts.
 */
class CoordinatorObservationsTest {
    private static final int EPOCH = 4;
    private static final String G = "g";

    private final CoordinatorDriver d = new CoordinatorDriver();

    @Test
    void roleRefusesATransitionItDoesNotOwn() {
        assertEquals(Role.LOADING, Role.FOLLOWER.transitionTo(Role.LOADING));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Role.ACTIVE.transitionTo(Role.LOADING));
        assertEquals("Cannot transition from ACTIVE to LOADING", e.getMessage());
        for (Role from : Role.values()) {
            assertEquals(Role.FOLLOWER, from.transitionTo(Role.FOLLOWER), from + " must be able to reset");
        }
    }

    @Test
    void whatWaitsOnAWriteIsShownInTheViewUntilTheWriteCommits() {
        d.activate(EPOCH);
        d.register(1, G, "a", "t");
        assertEquals(List.of("answer Register of 'a'"), d.view(G).awaiting());

        d.answerWrites(); // the Register is answered, and the run stops generation 0
        assertEquals(List.of(), d.view(G).awaiting());
        d.ackStop(1); // the owners multi of generation 1 is in flight
        assertEquals(List.of("send Start(1)"), d.view(G).awaiting());

        d.settle();
        assertEquals(List.of(), d.view(G).awaiting());
    }

    @Test
    void aRunEndsWithOneObservationThatAgreesWithTheView() {
        d.activate(EPOCH);
        d.join(1, G, "a", "t");

        assertEquals(List.of(new GenerationReached(G, 1, List.of("a"))), d.all(GenerationReached.class));
        List<RebalanceEnded> ended = d.all(RebalanceEnded.class);
        assertEquals(List.of(new RebalanceEnded(G, 1, true, new TreeSet<>(List.of("a")), 2)), ended);
        assertTrue(d.view(G).stable());
    }

    @Test
    void aLeaveIsObservedAsALeaveAndMissedPingsAsAFailure() {
        d.activate(EPOCH);
        d.join(1, G, "a", "t");
        d.join(2, G, "b", "t");

        d.request(2, new LeaveRequest(G, "b", null));
        assertEquals(List.of(new MemberRemoved(G, "b", false)), d.all(MemberRemoved.class));

        for (int missed = 0; missed <= CoordinatorDriver.MAX_PING_RETRIES + 1; missed++) {
            d.fire(new PingDue(G, "a")); // never answered
        }
        assertEquals(List.of(new MemberRemoved(G, "b", false), new MemberRemoved(G, "a", true)),
                d.all(MemberRemoved.class));
    }
}
