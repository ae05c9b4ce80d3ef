package shepherd.broker.spi;

/**
 * For fault-injection test builds only: what such a build lets a broker do that a production broker refuses. No
 * provider ships in the runtime image, so a broker started from it refuses every setting guarded here unless a
 * test puts a provider on its class path or module path (the chaos suite's {@code TestSupportJar} does).
 *
 * <p>The broker looks providers up with {@link java.util.ServiceLoader} when a guarded setting is asked for, and
 * accepts the setting if any provider permits it.
 */
public interface TestSupport {

    /**
     * True to let {@code test.fencing=disabled} through: the broker then takes the epoch unbumped, writes without
     * {@code check(/consumers/epoch)}, commands without a provably live session and skips the post-election lease
     * wait, so a deposed coordinator is indistinguishable from its successor. The chaos suite's negative control
     * needs exactly that to prove its checkers catch the resulting violations.
     */
    boolean permitsFencingDisabled();
}
