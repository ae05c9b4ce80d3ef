package shepherd.transport;

import java.util.ArrayList;
import java.util.List;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.OffsetCommitRequest;
import shepherd.protocol.OffsetCommitResponse;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PartitionResult;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.Request;
import shepherd.protocol.Response;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;
import shepherd.protocol.TopicStreams;
import shepherd.protocol.WildcardKind;
import shepherd.protocol.WildcardSubscription;

/** One request of every api, and a response derived from each request, so a test can check who answered what. */
public final class Samples {
    private Samples() {}

    /** One request of each of the seven apis, with non-trivial contents (multi-byte strings, nulls, lists). */
    public static List<Request> everyRequest() {
        return List.of(
                new ConsultRequest(),
                new RegisterRequest("group-ä", "consumer-1", new StaticSubscription(List.of(
                        new TopicStreams("orders", 2), new TopicStreams("payments", 1))),
                        true, OffsetReset.SMALLEST, 1_000, (short) 3, 7),
                new PingRequest(7, 12, (short) 1),
                new StopRequest(7, 12),
                startRequest(7, 13, 3),
                new OffsetCommitRequest("group-ä", "consumer-1", 7, 13, offsets(2)),
                new LeaveRequest("group-ä", "consumer-1", null));
    }

    /** A Register with a wildcard subscription (the other subscription layout). */
    public static RegisterRequest wildcardRegister() {
        return new RegisterRequest("g", "c", new WildcardSubscription(WildcardKind.BLACKLIST, "^internal\\..*", 4),
                false, OffsetReset.LARGEST, 200, (short) 0, -1);
    }

    public static StartRequest startRequest(int epoch, int generation, int partitions) {
        List<PartitionAssignment> assigned = new ArrayList<>(partitions);
        for (int i = 0; i < partitions; i++) {
            assigned.add(new PartitionAssignment("topic-with-a-longish-name", "1-" + i, 1_000_000L + i, i % 4));
        }
        return new StartRequest(epoch, generation, assigned);
    }

    public static List<PartitionOffset> offsets(int count) {
        List<PartitionOffset> offsets = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            offsets.add(new PartitionOffset("orders", "1-" + i, 42L * i));
        }
        return offsets;
    }

    /** The response a well-behaved peer gives {@code request}; deterministic, and different per request. */
    public static Response responseTo(Request request) {
        if (request instanceof ConsultRequest) {
            return new ConsultResponse(ErrorCode.NONE, 1, 7, List.of(
                    new BrokerInfo(1, "127.0.0.1", 9092, "host-1:1700000000"),
                    new BrokerInfo(2, "127.0.0.1", 9093, "host-2:1700000001")));
        } else if (request instanceof RegisterRequest register) {
            return new RegisterResponse(ErrorCode.NONE, register.highestEpochSeen() + 1, register.consumerId());
        } else if (request instanceof PingRequest ping) {
            // Alternate a null and a non-null nullable array.
            return new PingResponse(ErrorCode.NONE, ping.generation(), ping.numRetries() == 0 ? null : offsets(3));
        } else if (request instanceof StopRequest stop) {
            return new StopResponse(ErrorCode.NONE, stop.generation() % 2 == 0 ? offsets(1) : null);
        } else if (request instanceof StartRequest) {
            return StartResponse.ok();
        } else if (request instanceof OffsetCommitRequest commit) {
            return new OffsetCommitResponse(ErrorCode.NONE, commit.offsets().stream()
                    .map(o -> new PartitionResult(o.topic(), o.partition(), ErrorCode.NOT_OWNER)).toList());
        } else if (request instanceof LeaveRequest) {
            return LeaveResponse.error(ErrorCode.UNKNOWN_CONSUMER);
        }
        throw new IllegalArgumentException("Unknown request " + request);
    }
}
