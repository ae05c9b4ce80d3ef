package shepherd.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The harnesses' options: defaults, and a bad value named with its option instead of a bare parse error. */
class ReportArgsTest {

    @Test
    void choiceDefaultsToTheFirstAndNamesTheChoicesOfABadValue() {
        assertEquals("shared", new Report.Args(new String[0]).choice("zookeeper-jvm", "shared", "own"));
        assertEquals("own", new Report.Args(new String[] {"--zookeeper-jvm", "own"})
                .choice("zookeeper-jvm", "shared", "own"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Report.Args(new String[] {"--zookeeper-jvm", "mine"}).choice("zookeeper-jvm", "shared",
                        "own"));
        assertEquals("--zookeeper-jvm must be one of shared, own, got 'mine'", e.getMessage());
    }

    @Test
    void rebalanceBenchRunsZooKeeperInAJvmOfItsOwnUnlessToldToShare() {
        assertTrue(RebalanceBench.Options.parse(new Report.Args(new String[0])).ownZooKeeperJvm());
        assertFalse(RebalanceBench.Options.parse(new Report.Args(new String[] {"--zookeeper-jvm", "shared"}))
                .ownZooKeeperJvm());
    }

    @Test
    void integersNameTheirOptionWhenTheyDoNotParse() {
        Report.Args args = new Report.Args(new String[] {"--reps", "twenty", "--consumers", "4,x"});
        assertEquals("--reps takes an integer, got 'twenty'",
                assertThrows(IllegalArgumentException.class, () -> args.integer("reps", 20)).getMessage());
        assertEquals("--consumers takes an integer, got 'x'",
                assertThrows(IllegalArgumentException.class, () -> args.integers("consumers", "4")).getMessage());
        assertEquals(List.of(4, 16), new Report.Args(new String[] {"--consumers", "4, 16"}).integers("consumers", "4"));
        assertEquals(20, new Report.Args(new String[0]).integer("reps", 20));
    }
}
