package shepherd.coordination.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class AssignorsTest {

    /** The tests run patched into the named module, so this exercises module-info's uses/provides, not META-INF. */
    @Test
    void serviceLoaderFindsAllThree() {
        assertTrue(Assignor.class.getModule().isNamed(), "tests must run on the module path");
        assertEquals("shepherd.coordination", Assignor.class.getModule().getName());
        Set<String> providers = ServiceLoader.load(Assignor.class).stream()
                .map(p -> p.type().getName()).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(Set.of(RangeAssignor.class.getName(), RoundRobinAssignor.class.getName(),
                StickyAssignor.class.getName()), providers);
        assertEquals(new TreeSet<>(List.of("range", "roundrobin", "sticky")), Assignors.names());
    }

    @Test
    void findsEachByName() {
        assertInstanceOf(RangeAssignor.class, Assignors.byName("range"));
        assertInstanceOf(RoundRobinAssignor.class, Assignors.byName("roundrobin"));
        assertInstanceOf(StickyAssignor.class, Assignors.byName("sticky"));
        assertInstanceOf(RangeAssignor.class, Assignors.defaultAssignor());
        assertEquals("range", Assignors.DEFAULT_NAME);
    }

    @Test
    void unknownAssignorNameIsRejectedListingTheKnownOnes() {
        UnknownAssignorException e = assertThrows(UnknownAssignorException.class, () -> Assignors.byName("Range"));
        assertEquals("Range", e.name());
        assertEquals(Assignors.names(), e.knownNames());
        assertEquals("unknown assignor \"Range\"; known assignors: range, roundrobin, sticky", e.getMessage());
        assertTrue(Assignors.find("fair").isEmpty());
    }

    @Test
    void twoAssignorsWithOneNameAreRefused() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Assignors.index(List.of(new RangeAssignor(), new RangeAssignor())));
        assertTrue(e.getMessage().contains("\"range\""), e::getMessage);
    }
}
