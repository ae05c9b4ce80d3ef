package shepherd.benchmarks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
 * The floor under {@link CodecBenchmark} on the machine it runs on: the same Start of 1,024 partitions written and
 * read by hand, with only the work no correct codec can skip (copy every byte; look at every char written to know
 * it is ASCII and every byte read to know it is UTF-8; compare a repeated topic's bytes with the topic it repeats;
 * allocate what the decoded message holds) and none of the codec's other checks, error paths or generality. The
 * codec's figure minus this one is what its strictness and structure cost; this one is what the machine costs.
 * Setup checks that both write the same bytes and read the same message.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecFloorBenchmark {
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** Size prefix and header, written as the codec writes them. */
    private static final int HEADER_BYTES = Integer.BYTES + 9;
    private static final int TOPICS_REMEMBERED = 16;

    @Param({"1024"})
    int partitions;

    private StartRequest start;
    private byte[] header;
    private byte[] encoded;

    @Setup
    public void setUp() throws DecodeException {
        Frame frame = Frame.request(42, CodecBenchmark.startRequest(partitions));
        start = (StartRequest) frame.message();
        ByteBuffer byCodec = new FrameCodec().encode(frame);
        encoded = new byte[byCodec.remaining()];
        byCodec.get(encoded);
        header = Arrays.copyOf(encoded, HEADER_BYTES);
        if (!Arrays.equals(encodeByHand(), encoded)) {
            throw new IllegalStateException("the hand-written encoding differs from the codec's");
        }
        if (!decodeByHand().equals(start)) {
            throw new IllegalStateException("the hand-written decoding differs from the message");
        }
    }

    @Benchmark
    public byte[] encodeByHand() {
        byte[] out = new byte[encoded.length];
        System.arraycopy(header, 0, out, 0, HEADER_BYTES);
        int at = HEADER_BYTES;
        INT.set(out, at, start.coordinatorEpoch());
        INT.set(out, at + 4, start.generation());
        List<PartitionAssignment> assigned = start.assigned();
        INT.set(out, at + 8, assigned.size());
        at += 12;
        for (int i = 0; i < assigned.size(); i++) {
            PartitionAssignment a = assigned.get(i);
            at = ascii(out, at, a.topic());
            at = ascii(out, at, a.partition());
            LONG.set(out, at, a.offset());
            INT.set(out, at + 8, a.stream());
            at += 12;
        }
        return out;
    }

    @Benchmark
    public StartRequest decodeByHand() {
        int at = HEADER_BYTES;
        int epoch = (int) INT.get(encoded, at);
        int generation = (int) INT.get(encoded, at + 4);
        int count = (int) INT.get(encoded, at + 8);
        at += 12;
        PartitionAssignment[] assigned = new PartitionAssignment[count];
        String[] topics = new String[TOPICS_REMEMBERED];
        int[] topicsAt = new int[TOPICS_REMEMBERED];
        for (int i = 0; i < count; i++) {
            int length = (short) SHORT.get(encoded, at);
            at += 2;
            int slot = (length * 31 + encoded[at + length - 1]) & (TOPICS_REMEMBERED - 1);
            String topic = topics[slot];
            int seenAt = topicsAt[slot];
            if (topic == null || topic.length() != length
                    || !Arrays.equals(encoded, at, at + length, encoded, seenAt, seenAt + length)) {
                topic = new String(encoded, at, length, StandardCharsets.UTF_8);
                topics[slot] = topic;
                topicsAt[slot] = at;
            }
            at += length;
            length = (short) SHORT.get(encoded, at);
            at += 2;
            String partition = new String(encoded, at, length, StandardCharsets.UTF_8);
            at += length;
            assigned[i] = new PartitionAssignment(topic, partition, (long) LONG.get(encoded, at),
                    (int) INT.get(encoded, at + 8));
            at += 12;
        }
        return new StartRequest(epoch, generation, List.of(assigned));
    }

    @Benchmark
    public StartRequest encodeAndDecodeByHand() {
        encoded = encodeByHand();
        return decodeByHand();
    }

    /** A string as the codec writes it, after looking at every char: ASCII only, as the benchmark's are. */
    private static int ascii(byte[] out, int at, String value) {
        int chars = value.length();
        SHORT.set(out, at, (short) chars);
        at += 2;
        int seen = 0;
        for (int i = 0; i < chars; i++) {
            char c = value.charAt(i);
            seen |= c;
            out[at + i] = (byte) c;
        }
        if (seen >= 0x80) {
            throw new IllegalArgumentException("not ASCII: " + value);
        }
        return at + chars;
    }
}
