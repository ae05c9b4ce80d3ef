package shepherd.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import shepherd.broker.CoreRig;

/**
 * The coordinator core's share of the broker's event loop, under a full group ({@code members} consumers of one
 * topic with {@code partitions} partitions), with every ZooKeeper and consumer answer given at once by
 * {@link CoreRig} so that only the core's own work is timed:
 * <ul>
 *   <li>{@code pingRound}: two steps, a member's PingDue timer (sends the Ping) and its PingResponse: the steady
 *       state of a coordinator, one of these per member and ping interval;</li>
 *   <li>{@code joinAndLeave}: one member leaves and joins again, each followed by everything the rebalance needs
 *       (Stop to all, the owners multi, Start to all, every answer): two whole rebalances of the core, the CPU cost
 *       the end-to-end rebalance latency cannot go below.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class EventLoopBenchmark {
    @Param({"16", "64"})
    int members;

    @Param({"64", "1024"})
    int partitions;

    private CoreRig rig;
    private long next;
    /** Read once: a GroupView copies the owners, which would be timed with the step. */
    private int generation;

    @Setup(Level.Trial)
    public void setUp() {
        rig = new CoreRig(partitions);
        for (long c = 1; c <= members; c++) {
            rig.join(c);
        }
        if (rig.core.group(CoreRig.GROUP).orElseThrow().members().size() != members) {
            throw new IllegalStateException("the group did not fill up: " + rig.core.group(CoreRig.GROUP));
        }
        generation = rig.generation();
    }

    @Benchmark
    public int pingRound() {
        long connection = 1 + (next++ % members);
        rig.pingDue(connection);
        rig.answerPing(connection, generation);
        return generation;
    }

    @Benchmark
    public long joinAndLeave() {
        long connection = 1 + (next++ % members);
        rig.leave(connection);
        rig.join(connection);
        return rig.steps;
    }
}
