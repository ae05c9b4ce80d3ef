package shepherd.protocol.internal;

import java.util.EnumMap;
import java.util.Map;
import shepherd.protocol.ApiKey;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.ConsultRequest;
import shepherd.protocol.ConsultResponse;
import shepherd.protocol.DescribeGroupsRequest;
import shepherd.protocol.DescribeGroupsResponse;
import shepherd.protocol.FrameKind;
import shepherd.protocol.GroupDescription;
import shepherd.protocol.LeaveRequest;
import shepherd.protocol.LeaveResponse;
import shepherd.protocol.MemberDescription;
import shepherd.protocol.OffsetCommitRequest;
import shepherd.protocol.OffsetCommitResponse;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.PartitionAssignment;
import shepherd.protocol.PartitionDescription;
import shepherd.protocol.PartitionOffset;
import shepherd.protocol.PartitionResult;
import shepherd.protocol.PingRequest;
import shepherd.protocol.PingResponse;
import shepherd.protocol.RegisterRequest;
import shepherd.protocol.RegisterResponse;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StartResponse;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.StopRequest;
import shepherd.protocol.StopResponse;
import shepherd.protocol.Subscription;
import shepherd.protocol.TopicStreams;
import shepherd.protocol.WildcardKind;
import shepherd.protocol.WildcardSubscription;

/**
 * The body layout of every message, version 0: each write/read pair below is the message's row of the layout table
 * in docs/protocol.md, field by field, in wire order. Field names in reads are the wire names, so a decode error
 * names the field as the docs do. When a version 1 appears, layouts become keyed by (api key, version).
 */
public final class Bodies {
    /** Subscription kind byte of a static subscription; wildcards use {@link WildcardKind#code()}. */
    static final byte STATIC_SUBSCRIPTION = 0;

    // The smallest encoding of each array element (empty strings), so a count is checked against the remaining
    // bytes before the list is allocated.
    static final int BROKER_BYTES_MIN = 4 + 2 + 4 + 2;
    static final int TOPIC_STREAMS_BYTES_MIN = 2 + 4;
    static final int PARTITION_OFFSET_BYTES_MIN = 2 + 2 + 8;
    static final int PARTITION_ASSIGNMENT_BYTES_MIN = 2 + 2 + 8 + 4;
    static final int PARTITION_RESULT_BYTES_MIN = 2 + 2 + 2;
    static final int GROUP_ID_BYTES_MIN = 2;
    /** group_id, error_code, generation, state, members (count), partitions (count). */
    static final int GROUP_DESCRIPTION_BYTES_MIN = 2 + 2 + 4 + 2 + 4 + 4;
    /** The smallest subscription: kind, then an empty static topics array (a wildcard takes 6 after the kind). */
    static final int SUBSCRIPTION_BYTES_MIN = 1 + 4;
    /** consumer_id, host, subscription, ping_interval_ms, last_ping_age_ms. */
    static final int MEMBER_DESCRIPTION_BYTES_MIN = 2 + 2 + SUBSCRIPTION_BYTES_MIN + 4 + 8;
    /** topic, partition, owner (null: its length alone), stream, committed_offset. */
    static final int PARTITION_DESCRIPTION_BYTES_MIN = 2 + 2 + 2 + 4 + 8;

    private static final Map<ApiKey, BodyLayout<?>> REQUESTS = new EnumMap<>(ApiKey.class);
    private static final Map<ApiKey, BodyLayout<?>> RESPONSES = new EnumMap<>(ApiKey.class);

    static {
        request(ApiKey.CONSULT, BodyLayout.of(ConsultRequest.class, (out, m) -> {}, in -> new ConsultRequest()));
        response(ApiKey.CONSULT,
                BodyLayout.of(ConsultResponse.class, Bodies::writeConsultResponse, Bodies::readConsultResponse));
        request(ApiKey.REGISTER,
                BodyLayout.of(RegisterRequest.class, Bodies::writeRegisterRequest, Bodies::readRegisterRequest));
        response(ApiKey.REGISTER,
                BodyLayout.of(RegisterResponse.class, Bodies::writeRegisterResponse, Bodies::readRegisterResponse));
        request(ApiKey.PING, BodyLayout.of(PingRequest.class, Bodies::writePingRequest, Bodies::readPingRequest));
        response(ApiKey.PING,
                BodyLayout.of(PingResponse.class, Bodies::writePingResponse, Bodies::readPingResponse));
        request(ApiKey.STOP, BodyLayout.of(StopRequest.class, Bodies::writeStopRequest, Bodies::readStopRequest));
        response(ApiKey.STOP,
                BodyLayout.of(StopResponse.class, Bodies::writeStopResponse, Bodies::readStopResponse));
        request(ApiKey.START,
                BodyLayout.of(StartRequest.class, Bodies::writeStartRequest, Bodies::readStartRequest));
        response(ApiKey.START,
                BodyLayout.of(StartResponse.class, Bodies::writeStartResponse, Bodies::readStartResponse));
        request(ApiKey.OFFSET_COMMIT, BodyLayout.of(
                OffsetCommitRequest.class, Bodies::writeOffsetCommitRequest, Bodies::readOffsetCommitRequest));
        response(ApiKey.OFFSET_COMMIT, BodyLayout.of(
                OffsetCommitResponse.class, Bodies::writeOffsetCommitResponse, Bodies::readOffsetCommitResponse));
        request(ApiKey.LEAVE,
                BodyLayout.of(LeaveRequest.class, Bodies::writeLeaveRequest, Bodies::readLeaveRequest));
        response(ApiKey.LEAVE,
                BodyLayout.of(LeaveResponse.class, Bodies::writeLeaveResponse, Bodies::readLeaveResponse));
        request(ApiKey.DESCRIBE_GROUPS, BodyLayout.of(DescribeGroupsRequest.class,
                Bodies::writeDescribeGroupsRequest, Bodies::readDescribeGroupsRequest));
        response(ApiKey.DESCRIBE_GROUPS, BodyLayout.of(DescribeGroupsResponse.class,
                Bodies::writeDescribeGroupsResponse, Bodies::readDescribeGroupsResponse));
        for (ApiKey api : ApiKey.values()) {
            if (!REQUESTS.containsKey(api) || !RESPONSES.containsKey(api)) {
                throw new IllegalStateException("No body layout for both directions of " + api);
            }
        }
    }

    private Bodies() {}

    /** The layout of the body a frame of this kind and api key carries. */
    public static BodyLayout<?> of(FrameKind kind, ApiKey api) {
        return kind == FrameKind.REQUEST ? REQUESTS.get(api) : RESPONSES.get(api);
    }

    private static void request(ApiKey api, BodyLayout<?> layout) {
        REQUESTS.put(api, layout);
    }

    private static void response(ApiKey api, BodyLayout<?> layout) {
        RESPONSES.put(api, layout);
    }

    // --- 0 Consult -------------------------------------------------------------------------------------------

    private static void writeConsultResponse(Writer out, ConsultResponse m) {
        out.errorCode(m.errorCode());
        out.int32(m.coordinatorId());
        out.int32(m.coordinatorEpoch());
        out.array("brokers", m.brokers(), Bodies::writeBroker);
    }

    private static ConsultResponse readConsultResponse(Reader in) throws Malformed {
        return new ConsultResponse(
                in.errorCode("error_code"),
                in.int32("coordinator_id"),
                in.int32("coordinator_epoch"),
                in.array("brokers", BROKER_BYTES_MIN, Bodies::readBroker));
    }

    private static void writeBroker(Writer out, BrokerInfo b) {
        out.int32(b.id());
        out.string("host", b.host());
        out.int32(b.port());
        out.string("creator_id", b.creatorId());
    }

    private static BrokerInfo readBroker(Reader in) throws Malformed {
        return new BrokerInfo(in.int32("id"), in.string("host"), in.int32("port"), in.string("creator_id"));
    }

    // --- 1 Register ------------------------------------------------------------------------------------------

    private static void writeRegisterRequest(Writer out, RegisterRequest m) {
        out.string("group_id", m.groupId());
        out.string("consumer_id", m.consumerId());
        out.struct("subscription", m.subscription(), Bodies::writeSubscription);
        out.bool(m.autoCommit());
        out.string("auto_offset_reset", m.autoOffsetReset().wireName());
        out.int32(m.pingIntervalMs());
        out.int16(m.maxPingRetries());
        out.int32(m.highestEpochSeen());
    }

    private static RegisterRequest readRegisterRequest(Reader in) throws Malformed {
        return new RegisterRequest(
                in.string("group_id"),
                in.string("consumer_id"),
                in.struct("subscription", Bodies::readSubscription),
                in.bool("auto_commit"),
                readOffsetReset(in),
                in.int32("ping_interval_ms"),
                in.int16("max_ping_retries"),
                in.int32("highest_epoch_seen"));
    }

    private static void writeSubscription(Writer out, Subscription s) {
        if (s instanceof StaticSubscription named) {
            out.int8(STATIC_SUBSCRIPTION);
            out.array("topics", named.topics(), Bodies::writeTopicStreams);
        } else {
            WildcardSubscription wildcard = (WildcardSubscription) s;
            out.int8(wildcard.kind().code());
            out.string("pattern", wildcard.pattern());
            out.int32(wildcard.streams());
        }
    }

    private static Subscription readSubscription(Reader in) throws Malformed {
        byte kind = in.int8("kind");
        if (kind == STATIC_SUBSCRIPTION) {
            return new StaticSubscription(in.array("topics", TOPIC_STREAMS_BYTES_MIN, Bodies::readTopicStreams));
        }
        return new WildcardSubscription(
                in.known("kind", WildcardKind.forCode(kind), "subscription kind " + kind),
                in.string("pattern"),
                in.int32("streams"));
    }

    private static void writeTopicStreams(Writer out, TopicStreams t) {
        out.string("topic", t.topic());
        out.int32(t.streams());
    }

    private static TopicStreams readTopicStreams(Reader in) throws Malformed {
        return new TopicStreams(in.topic("topic"), in.int32("streams"));
    }

    private static OffsetReset readOffsetReset(Reader in) throws Malformed {
        String name = in.string("auto_offset_reset");
        return in.known("auto_offset_reset", OffsetReset.forWireName(name),
                "auto_offset_reset " + Reader.quote(name) + " (expected \"smallest\" or \"largest\")");
    }

    private static void writeRegisterResponse(Writer out, RegisterResponse m) {
        out.errorCode(m.errorCode());
        out.int32(m.coordinatorEpoch());
        out.string("consumer_id", m.consumerId());
    }

    private static RegisterResponse readRegisterResponse(Reader in) throws Malformed {
        return new RegisterResponse(
                in.errorCode("error_code"), in.int32("coordinator_epoch"), in.string("consumer_id"));
    }

    // --- 2 Ping ----------------------------------------------------------------------------------------------

    private static void writePingRequest(Writer out, PingRequest m) {
        out.int32(m.coordinatorEpoch());
        out.int32(m.generation());
        out.int16(m.numRetries());
    }

    private static PingRequest readPingRequest(Reader in) throws Malformed {
        return new PingRequest(in.int32("coordinator_epoch"), in.int32("generation"), in.int16("num_retries"));
    }

    private static void writePingResponse(Writer out, PingResponse m) {
        out.errorCode(m.errorCode());
        out.int32(m.generation());
        out.nullableArray("offsets", m.offsets(), Bodies::writePartitionOffset);
    }

    private static PingResponse readPingResponse(Reader in) throws Malformed {
        return new PingResponse(
                in.errorCode("error_code"),
                in.int32("generation"),
                in.nullableArray("offsets", PARTITION_OFFSET_BYTES_MIN, Bodies::readPartitionOffset));
    }

    // --- 3 Stop ----------------------------------------------------------------------------------------------

    private static void writeStopRequest(Writer out, StopRequest m) {
        out.int32(m.coordinatorEpoch());
        out.int32(m.generation());
    }

    private static StopRequest readStopRequest(Reader in) throws Malformed {
        return new StopRequest(in.int32("coordinator_epoch"), in.int32("generation"));
    }

    private static void writeStopResponse(Writer out, StopResponse m) {
        out.errorCode(m.errorCode());
        out.nullableArray("offsets", m.offsets(), Bodies::writePartitionOffset);
    }

    private static StopResponse readStopResponse(Reader in) throws Malformed {
        return new StopResponse(
                in.errorCode("error_code"),
                in.nullableArray("offsets", PARTITION_OFFSET_BYTES_MIN, Bodies::readPartitionOffset));
    }

    // --- 4 Start ---------------------------------------------------------------------------------------------

    private static void writeStartRequest(Writer out, StartRequest m) {
        out.int32(m.coordinatorEpoch());
        out.int32(m.generation());
        out.array("assigned", m.assigned(), Bodies::writePartitionAssignment);
    }

    private static StartRequest readStartRequest(Reader in) throws Malformed {
        return new StartRequest(
                in.int32("coordinator_epoch"),
                in.int32("generation"),
                in.array("assigned", PARTITION_ASSIGNMENT_BYTES_MIN, Bodies::readPartitionAssignment));
    }

    private static void writePartitionAssignment(Writer out, PartitionAssignment a) {
        out.string("topic", a.topic());
        out.string("partition", a.partition());
        out.int64(a.offset());
        out.int32(a.stream());
    }

    private static PartitionAssignment readPartitionAssignment(Reader in) throws Malformed {
        return new PartitionAssignment(
                in.topic("topic"), in.string("partition"), in.int64("offset"), in.int32("stream"));
    }

    private static void writeStartResponse(Writer out, StartResponse m) {
        out.errorCode(m.errorCode());
    }

    private static StartResponse readStartResponse(Reader in) throws Malformed {
        return new StartResponse(in.errorCode("error_code"));
    }

    // --- 5 OffsetCommit --------------------------------------------------------------------------------------

    private static void writeOffsetCommitRequest(Writer out, OffsetCommitRequest m) {
        out.string("group_id", m.groupId());
        out.string("consumer_id", m.consumerId());
        out.int32(m.coordinatorEpoch());
        out.int32(m.generation());
        out.array("offsets", m.offsets(), Bodies::writePartitionOffset);
    }

    private static OffsetCommitRequest readOffsetCommitRequest(Reader in) throws Malformed {
        return new OffsetCommitRequest(
                in.string("group_id"),
                in.string("consumer_id"),
                in.int32("coordinator_epoch"),
                in.int32("generation"),
                in.array("offsets", PARTITION_OFFSET_BYTES_MIN, Bodies::readPartitionOffset));
    }

    private static void writeOffsetCommitResponse(Writer out, OffsetCommitResponse m) {
        out.errorCode(m.errorCode());
        out.array("results", m.results(), Bodies::writePartitionResult);
    }

    private static OffsetCommitResponse readOffsetCommitResponse(Reader in) throws Malformed {
        return new OffsetCommitResponse(
                in.errorCode("error_code"),
                in.array("results", PARTITION_RESULT_BYTES_MIN, Bodies::readPartitionResult));
    }

    private static void writePartitionResult(Writer out, PartitionResult r) {
        out.string("topic", r.topic());
        out.string("partition", r.partition());
        out.errorCode(r.errorCode());
    }

    private static PartitionResult readPartitionResult(Reader in) throws Malformed {
        return new PartitionResult(in.topic("topic"), in.string("partition"), in.errorCode("error_code"));
    }

    // --- 6 Leave ---------------------------------------------------------------------------------------------

    private static void writeLeaveRequest(Writer out, LeaveRequest m) {
        out.string("group_id", m.groupId());
        out.string("consumer_id", m.consumerId());
        out.nullableArray("offsets", m.offsets(), Bodies::writePartitionOffset);
    }

    private static LeaveRequest readLeaveRequest(Reader in) throws Malformed {
        return new LeaveRequest(
                in.string("group_id"),
                in.string("consumer_id"),
                in.nullableArray("offsets", PARTITION_OFFSET_BYTES_MIN, Bodies::readPartitionOffset));
    }

    private static void writeLeaveResponse(Writer out, LeaveResponse m) {
        out.errorCode(m.errorCode());
    }

    private static LeaveResponse readLeaveResponse(Reader in) throws Malformed {
        return new LeaveResponse(in.errorCode("error_code"));
    }

    // --- 7 DescribeGroups ------------------------------------------------------------------------------------

    private static void writeDescribeGroupsRequest(Writer out, DescribeGroupsRequest m) {
        out.array("group_ids", m.groupIds(), (w, id) -> w.string("group_id", id));
    }

    private static DescribeGroupsRequest readDescribeGroupsRequest(Reader in) throws Malformed {
        return new DescribeGroupsRequest(in.array("group_ids", GROUP_ID_BYTES_MIN, r -> r.string("group_id")));
    }

    private static void writeDescribeGroupsResponse(Writer out, DescribeGroupsResponse m) {
        out.errorCode(m.errorCode());
        out.int32(m.coordinatorId());
        out.int32(m.coordinatorEpoch());
        out.array("groups", m.groups(), Bodies::writeGroupDescription);
    }

    private static DescribeGroupsResponse readDescribeGroupsResponse(Reader in) throws Malformed {
        return new DescribeGroupsResponse(
                in.errorCode("error_code"),
                in.int32("coordinator_id"),
                in.int32("coordinator_epoch"),
                in.array("groups", GROUP_DESCRIPTION_BYTES_MIN, Bodies::readGroupDescription));
    }

    private static void writeGroupDescription(Writer out, GroupDescription g) {
        out.string("group_id", g.groupId());
        out.errorCode(g.errorCode());
        out.int32(g.generation());
        out.string("state", g.state());
        out.array("members", g.members(), Bodies::writeMemberDescription);
        out.array("partitions", g.partitions(), Bodies::writePartitionDescription);
    }

    private static GroupDescription readGroupDescription(Reader in) throws Malformed {
        return new GroupDescription(
                in.string("group_id"),
                in.errorCode("error_code"),
                in.int32("generation"),
                in.string("state"),
                in.array("members", MEMBER_DESCRIPTION_BYTES_MIN, Bodies::readMemberDescription),
                in.array("partitions", PARTITION_DESCRIPTION_BYTES_MIN, Bodies::readPartitionDescription));
    }

    private static void writeMemberDescription(Writer out, MemberDescription m) {
        out.string("consumer_id", m.consumerId());
        out.string("host", m.host());
        out.struct("subscription", m.subscription(), Bodies::writeSubscription);
        out.int32(m.pingIntervalMs());
        out.int64(m.lastPingAgeMs());
    }

    private static MemberDescription readMemberDescription(Reader in) throws Malformed {
        return new MemberDescription(
                in.string("consumer_id"),
                in.string("host"),
                in.struct("subscription", Bodies::readSubscription),
                in.int32("ping_interval_ms"),
                in.int64("last_ping_age_ms"));
    }

    private static void writePartitionDescription(Writer out, PartitionDescription p) {
        out.string("topic", p.topic());
        out.string("partition", p.partition());
        out.nullableString("owner", p.owner());
        out.int32(p.stream());
        out.int64(p.committedOffset());
    }

    private static PartitionDescription readPartitionDescription(Reader in) throws Malformed {
        return new PartitionDescription(
                in.topic("topic"),
                in.string("partition"),
                in.nullableString("owner"),
                in.int32("stream"),
                in.int64("committed_offset"));
    }

    // --- Shared structs --------------------------------------------------------------------------------------

    private static void writePartitionOffset(Writer out, PartitionOffset p) {
        out.string("topic", p.topic());
        out.string("partition", p.partition());
        out.int64(p.offset());
    }

    private static PartitionOffset readPartitionOffset(Reader in) throws Malformed {
        return new PartitionOffset(in.topic("topic"), in.string("partition"), in.int64("offset"));
    }
}
