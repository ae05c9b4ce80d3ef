package shepherd.consumer.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SessionStatusTest {

    @Test
    void legalTransitionsAreExactlyTheDiagram() {
        assertEquals(EnumSet.of(SessionStatus.REGISTERING), SessionStatus.DISCOVERING.successors());
        assertEquals(EnumSet.of(SessionStatus.REGISTERED, SessionStatus.DISCOVERING),
                SessionStatus.REGISTERING.successors());
        assertEquals(EnumSet.of(SessionStatus.FETCHING, SessionStatus.STOPPED, SessionStatus.DISCOVERING),
                SessionStatus.REGISTERED.successors());
        assertEquals(EnumSet.of(SessionStatus.STOPPED, SessionStatus.DISCOVERING), SessionStatus.FETCHING.successors());
        assertEquals(EnumSet.of(SessionStatus.FETCHING, SessionStatus.DISCOVERING), SessionStatus.STOPPED.successors());
    }

    @Test
    void illegalTransitionThrowsWithBothStatuses() {
        for (SessionStatus from : SessionStatus.values()) {
            Set<SessionStatus> illegal = EnumSet.complementOf(EnumSet.copyOf(from.successors()));
            for (SessionStatus to : illegal) {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> from.transitionTo(to));
                assertEquals("Cannot transition from " + from + " to " + to, e.getMessage());
            }
        }
    }

    @Test
    void onlyRegisteredFetchingAndStoppedAreMembers() {
        assertEquals(EnumSet.of(SessionStatus.REGISTERED, SessionStatus.FETCHING, SessionStatus.STOPPED),
                EnumSet.copyOf(java.util.Arrays.stream(SessionStatus.values()).filter(SessionStatus::isMember)
                        .toList()));
    }
}
