package shepherd.benchmarks;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
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
import shepherd.protocol.DecodeException;
import shepherd.protocol.Frame;
import shepherd.protocol.FrameCodec;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.StartRequest;

/**
 * DESIGN §9: encode + decode of a StartRequest carrying 1,024 partitions, target ≤ 50 µs. The partitions look like
 * real ones: topic names of a dozen characters, ids {@code "<brokerId>-<n>"}, large offsets.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecBenchmark {
    @Param({"1024"})
    int partitions;

    private final FrameCodec codec = new FrameCodec();
    private Frame frame;
    private ByteBuffer encoded;

    @Setup
    public void setUp() {
        frame = Frame.request(42, startRequest(partitions));
        encoded = codec.encode(frame);
    }

    /** The benchmarks' Start: {@code partitions} partitions of eight topics, spread over 16 streams. */
    static StartRequest startRequest(int partitions) {
        List<PartitionAssignment> assigned = new ArrayList<>(partitions);
        for (int i = 0; i < partitions; i++) {
            assigned.add(new PartitionAssignment("orders-" + (i % 8), (i % 3) + "-" + i, 1_000_000_000L + i, i % 16));
        }
        return new StartRequest(7, 1_234, assigned);
    }

    @Benchmark
    public ByteBuffer encodeStartRequest() {
        return codec.encode(frame);
    }

    @Benchmark
    public Frame decodeStartRequest() throws DecodeException {
        return codec.decodeSized(encoded);
    }

    @Benchmark
    public Frame encodeAndDecodeStartRequest() throws DecodeException {
        return codec.decodeSized(codec.encode(frame));
    }
}
