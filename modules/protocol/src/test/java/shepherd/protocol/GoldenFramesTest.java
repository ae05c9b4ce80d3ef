package shepherd.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every message against bytes written by hand from docs/protocol.md (src/test/resources/golden): the encoder must
 * produce them exactly and the decoder must read them back to the same message. A change to the wire format has to
 * change a golden file, which a reviewer can check against the docs byte by byte.
 */
class GoldenFramesTest {
    private static final FrameCodec CODEC = new FrameCodec();
    private static final Path GOLDEN_DIR = Path.of("src/test/resources/golden");

    private static final Map<String, Frame> GOLDEN = new LinkedHashMap<>();

    static {
        PartitionOffset orders10At42 = new PartitionOffset("orders", "1-0", 42);
        GOLDEN.put("consult-request", Frame.request(1, new ConsultRequest()));
        GOLDEN.put("consult-response", Frame.response(1, new ConsultResponse(ErrorCode.NONE, 2, 7, List.of(
                new BrokerInfo(1, "b1", 9092, "b1-42"), new BrokerInfo(2, "b2", 9093, "b2-43")))));
        GOLDEN.put("consult-response-none",
                Frame.response(2, ConsultResponse.error(ErrorCode.COORDINATOR_NOT_READY)));
        GOLDEN.put("register-request-static", Frame.request(3, new RegisterRequest("g1", "c1",
                new StaticSubscription(List.of(new TopicStreams("orders", 2), new TopicStreams("café", 1))),
                true, OffsetReset.SMALLEST, 1000, (short) 3, 7)));
        GOLDEN.put("register-request-whitelist", Frame.request(4, new RegisterRequest("g1", "c2",
                new WildcardSubscription(WildcardKind.WHITELIST, "ord.*", 3),
                false, OffsetReset.LARGEST, 500, (short) 2, -1)));
        GOLDEN.put("register-request-blacklist", Frame.request(5, new RegisterRequest("g1", "c3",
                new WildcardSubscription(WildcardKind.BLACKLIST, "tmp-.*", 1),
                true, OffsetReset.SMALLEST, 200, (short) 0, 0)));
        GOLDEN.put("register-response", Frame.response(3, new RegisterResponse(ErrorCode.NONE, 7, "c1")));
        GOLDEN.put("ping-request", Frame.request(6, new PingRequest(7, 4, (short) 1)));
        GOLDEN.put("ping-response-offsets", Frame.response(6, new PingResponse(ErrorCode.NONE, 4, List.of(
                orders10At42, new PartitionOffset("orders", "2-1", 1L << 32)))));
        GOLDEN.put("ping-response-null", Frame.response(7, new PingResponse(ErrorCode.NONE, 4, null)));
        GOLDEN.put("stop-request", Frame.request(8, new StopRequest(7, 4)));
        GOLDEN.put("stop-response-offsets", Frame.response(8, new StopResponse(ErrorCode.NONE, List.of(
                new PartitionOffset("orders", "1-0", 43)))));
        GOLDEN.put("stop-response-null", Frame.response(9, new StopResponse(ErrorCode.NONE, null)));
        GOLDEN.put("start-request", Frame.request(10, new StartRequest(7, 5, List.of(
                new PartitionAssignment("orders", "1-0", 43, 0), new PartitionAssignment("orders", "2-0", 0, 1)))));
        GOLDEN.put("start-response", Frame.response(10, StartResponse.error(ErrorCode.STALE_COORDINATOR_EPOCH)));
        GOLDEN.put("offset-commit-request", Frame.request(11, new OffsetCommitRequest("g1", "c1", 7, 5, List.of(
                new PartitionOffset("orders", "1-0", 44)))));
        GOLDEN.put("offset-commit-response", Frame.response(11, new OffsetCommitResponse(ErrorCode.NONE, List.of(
                new PartitionResult("orders", "1-0", ErrorCode.NONE),
                new PartitionResult("orders", "2-0", ErrorCode.NOT_OWNER)))));
        GOLDEN.put("leave-request-offsets", Frame.request(12, new LeaveRequest("g1", "c1", List.of(
                new PartitionOffset("orders", "1-0", 45)))));
        GOLDEN.put("leave-request-null", Frame.request(13, new LeaveRequest("g1", "c1", null)));
        GOLDEN.put("leave-response", Frame.response(12, LeaveResponse.ok()));
        GOLDEN.put("describe-groups-request", Frame.request(14, new DescribeGroupsRequest(List.of("g1", "g2"))));
        GOLDEN.put("describe-groups-response", Frame.response(14, new DescribeGroupsResponse(ErrorCode.NONE, 2, 7,
                List.of(new GroupDescription("g1", ErrorCode.NONE, 5, "IDLE",
                                List.of(new MemberDescription("c1", "10.0.0.7",
                                        new StaticSubscription(List.of(new TopicStreams("orders", 1))), 1000, 250)),
                                List.of(new PartitionDescription("orders", "1-0", "c1", 0, 43),
                                        new PartitionDescription("orders", "2-0", null, -1, -1))),
                        GroupDescription.unknown("g2")))));
        GOLDEN.put("describe-groups-response-not-coordinator", Frame.response(15,
                new DescribeGroupsResponse(ErrorCode.NOT_COORDINATOR, 2, 7, List.of())));
    }

    static Stream<String> goldenNames() {
        return GOLDEN.keySet().stream();
    }

    @ParameterizedTest
    @MethodSource("goldenNames")
    void encodingGivesTheGoldenBytes(String name) {
        ByteBuffer encoded = CODEC.encode(GOLDEN.get(name));
        assertEquals(Hex.of(ByteBuffer.wrap(Hex.golden(name))), Hex.of(encoded), name);
    }

    @ParameterizedTest
    @MethodSource("goldenNames")
    void decodingTheGoldenBytesGivesTheMessage(String name) throws DecodeException {
        byte[] golden = Hex.golden(name);
        assertEquals(GOLDEN.get(name), CODEC.decodeSized(ByteBuffer.wrap(golden)), name);
        byte[] body = Arrays.copyOfRange(golden, FrameCodec.SIZE_BYTES, golden.length);
        assertEquals(GOLDEN.get(name), CODEC.decode(ByteBuffer.wrap(body)), name);
    }

    @Test
    void everyMessageTypeHasAGoldenFrame() {
        Set<String> covered = GOLDEN.values().stream()
                .map(frame -> frame.message().getClass().getSimpleName())
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> all = new TreeSet<>();
        for (Class<?> request : Request.class.getPermittedSubclasses()) {
            all.add(request.getSimpleName());
        }
        for (Class<?> response : Response.class.getPermittedSubclasses()) {
            all.add(response.getSimpleName());
        }
        assertEquals(all, covered);
        assertEquals(EnumSet.allOf(ApiKey.class).size() * 2, all.size());
    }

    @Test
    void everyGoldenFileIsChecked() throws IOException {
        try (Stream<Path> files = Files.list(GOLDEN_DIR)) {
            Set<String> names = files.map(path -> path.getFileName().toString())
                    .filter(file -> file.endsWith(".hex"))
                    .map(file -> file.substring(0, file.length() - ".hex".length()))
                    .collect(Collectors.toCollection(TreeSet::new));
            Set<String> checked = new TreeSet<>(GOLDEN.keySet());
            checked.add("error-reply-unknown-api");
            assertEquals(checked, names);
        }
    }

    @Test
    void unknownApiKeyGetsTheGoldenBareReply() {
        byte[] request = WireBytes.header(0, 99, 3, 14).int32(12345).body();
        DecodeException failure = ExpectDecode.fails(CODEC, request);
        ByteBuffer reply = CODEC.errorReplyFor(failure).orElseThrow();
        assertArrayEquals(Hex.golden("error-reply-unknown-api"), Hex.bytes(reply));
    }
}
