package shepherd.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import shepherd.coordination.assign.Assignment;
import shepherd.coordination.assign.AssignmentInput;
import shepherd.coordination.assign.Assignor;
import shepherd.coordination.assign.Assignors;
import shepherd.coordination.assign.PartitionId;

/**
 * Issue "benchmarks": range, round-robin and sticky assignment of 50,000 partitions (50 brokers × 1,000) of one
 * topic to 1,000 streams (500 consumers × 2). {@code sticky} is measured twice: from nothing, and after one of the
 * consumers left (its input then carries the previous owners, the case sticky exists for).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AssignorBenchmark {
    @Param({"range", "roundrobin", "sticky"})
    String assignor;

    @Param({"50000"})
    int partitions;

    @Param({"1000"})
    int streams;

    private Assignor chosen;
    private AssignmentInput fresh;
    private AssignmentInput afterLeave;

    @Setup
    public void setUp() {
        chosen = Assignors.byName(assignor);
        int brokers = 50;
        List<PartitionId> ids = new ArrayList<>(partitions);
        for (int i = 0; i < partitions; i++) {
            ids.add(new PartitionId(i % brokers, i / brokers));
        }
        Map<String, Map<String, Integer>> counts = new TreeMap<>();
        for (int c = 0; c < streams / 2; c++) {
            counts.put(String.format("consumer-%04d", c), Map.of("orders", 2));
        }
        fresh = AssignmentInput.fromSubscriptions(Map.of("orders", ids), counts, Map.of());
        Assignment previous = chosen.assign(fresh);
        counts.remove("consumer-0000");
        afterLeave = AssignmentInput.fromSubscriptions(Map.of("orders", ids), counts, previous.owners());
    }

    @Benchmark
    public Assignment assignFromNothing() {
        return chosen.assign(fresh);
    }

    @Benchmark
    public Assignment reassignAfterOneConsumerLeft() {
        return chosen.assign(afterLeave);
    }
}
