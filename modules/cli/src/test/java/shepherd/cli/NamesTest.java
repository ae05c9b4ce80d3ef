package shepherd.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import shepherd.cli.admin.Names;

/** The tools' id rule, the coordinator's: 1-255 of [A-Za-z0-9._-], not "." or "..". */
class NamesTest {

    @Test
    void acceptsWhatTheCoordinatorAccepts() {
        for (String ok : new String[] {"orders", "a", "A.b_c-9", "...", ".hidden", "x".repeat(255)}) {
            assertEquals(Optional.empty(), Names.invalidId("topic", ok), ok);
        }
    }

    @Test
    void refusesNamingTheValueAndTheReason() {
        assertEquals(Optional.of("topic is empty"), Names.invalidId("topic", ""));
        assertEquals(Optional.of("topic '.' is reserved"), Names.invalidId("topic", "."));
        assertEquals(Optional.of("topic '..' is reserved"), Names.invalidId("topic", ".."));
        assertEquals(Optional.of("topic is 256 characters long, more than 255"),
                Names.invalidId("topic", "x".repeat(256)));
        assertEquals(Optional.of("group 'a b' has the character ' ' at index 1; allowed are letters, digits, '.',"
                + " '_' and '-'"), Names.invalidId("group", "a b"));
        for (String bad : new String[] {"a/b", "a\\b", "é", "a\u0000", "a:b", "a*"}) {
            assertTrue(Names.invalidId("topic", bad).isPresent(), bad);
        }
    }
}
