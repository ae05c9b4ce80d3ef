package shepherd.chaos.unsafe;

import shepherd.broker.spi.TestSupport;

/**
 * Lets a broker run with {@code test.fencing=disabled}: the chaos suite's negative control. It reaches a broker
 * only inside the jar {@link TestSupportJar#build} writes; it is deliberately not registered for this test JVM
 * (no {@code META-INF/services} entry among the test resources), so no in-process broker is ever unfenced by accident.
 */
public final class FencingOffTestSupport implements TestSupport {

    /** ServiceLoader's public no-argument constructor. */
    public FencingOffTestSupport() {
    }

    @Override
    public boolean permitsFencingDisabled() {
        return true;
    }
}
