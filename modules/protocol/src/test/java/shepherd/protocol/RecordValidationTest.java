package shepherd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class RecordValidationTest {
    private static final PartitionOffset OFFSET = new PartitionOffset("t", "1-0", 1);
    private static final Subscription SUBSCRIPTION = new StaticSubscription(List.of());

    static Stream<Arguments> nullFields() {
        return Stream.of(
                nullIn("ConsultResponse.errorCode", () -> new ConsultResponse(null, 1, 1, List.of())),
                nullIn("ConsultResponse.brokers", () -> new ConsultResponse(ErrorCode.NONE, 1, 1, null)),
                nullIn("BrokerInfo.host", () -> new BrokerInfo(1, null, 1, "c")),
                nullIn("BrokerInfo.creatorId", () -> new BrokerInfo(1, "h", 1, null)),
                nullIn("RegisterRequest.groupId", () -> register(null, "c", SUBSCRIPTION, OffsetReset.SMALLEST)),
                nullIn("RegisterRequest.consumerId", () -> register("g", null, SUBSCRIPTION, OffsetReset.SMALLEST)),
                nullIn("RegisterRequest.subscription", () -> register("g", "c", null, OffsetReset.SMALLEST)),
                nullIn("RegisterRequest.autoOffsetReset", () -> register("g", "c", SUBSCRIPTION, null)),
                nullIn("StaticSubscription.topics", () -> new StaticSubscription(null)),
                nullIn("WildcardSubscription.kind", () -> new WildcardSubscription(null, "p", 1)),
                nullIn("WildcardSubscription.pattern", () -> new WildcardSubscription(WildcardKind.WHITELIST, null, 1)),
                nullIn("TopicStreams.topic", () -> new TopicStreams(null, 1)),
                nullIn("RegisterResponse.errorCode", () -> new RegisterResponse(null, 1, "c")),
                nullIn("RegisterResponse.consumerId", () -> new RegisterResponse(ErrorCode.NONE, 1, null)),
                nullIn("PingResponse.errorCode", () -> new PingResponse(null, 1, null)),
                nullIn("StopResponse.errorCode", () -> new StopResponse(null, null)),
                nullIn("StartRequest.assigned", () -> new StartRequest(1, 1, null)),
                nullIn("StartResponse.errorCode", () -> new StartResponse(null)),
                nullIn("OffsetCommitRequest.groupId", () -> new OffsetCommitRequest(null, "c", 1, 1, List.of())),
                nullIn("OffsetCommitRequest.consumerId", () -> new OffsetCommitRequest("g", null, 1, 1, List.of())),
                nullIn("OffsetCommitRequest.offsets", () -> new OffsetCommitRequest("g", "c", 1, 1, null)),
                nullIn("OffsetCommitResponse.errorCode", () -> new OffsetCommitResponse(null, List.of())),
                nullIn("OffsetCommitResponse.results", () -> new OffsetCommitResponse(ErrorCode.NONE, null)),
                nullIn("LeaveRequest.groupId", () -> new LeaveRequest(null, "c", null)),
                nullIn("LeaveRequest.consumerId", () -> new LeaveRequest("g", null, null)),
                nullIn("LeaveResponse.errorCode", () -> new LeaveResponse(null)),
                nullIn("PartitionOffset.topic", () -> new PartitionOffset(null, "p", 1)),
                nullIn("PartitionOffset.partition", () -> new PartitionOffset("t", null, 1)),
                nullIn("PartitionAssignment.topic", () -> new PartitionAssignment(null, "p", 1, 0)),
                nullIn("PartitionAssignment.partition", () -> new PartitionAssignment("t", null, 1, 0)),
                nullIn("PartitionResult.topic", () -> new PartitionResult(null, "p", ErrorCode.NONE)),
                nullIn("PartitionResult.partition", () -> new PartitionResult("t", null, ErrorCode.NONE)),
                nullIn("PartitionResult.errorCode", () -> new PartitionResult("t", "p", null)),
                nullIn("DescribeGroupsRequest.groupIds", () -> new DescribeGroupsRequest(null)),
                nullIn("DescribeGroupsResponse.errorCode", () -> new DescribeGroupsResponse(null, 1, 1, List.of())),
                nullIn("DescribeGroupsResponse.groups", () -> new DescribeGroupsResponse(ErrorCode.NONE, 1, 1, null)),
                nullIn("GroupDescription.groupId",
                        () -> new GroupDescription(null, ErrorCode.NONE, 1, "IDLE", List.of(), List.of())),
                nullIn("GroupDescription.errorCode",
                        () -> new GroupDescription("g", null, 1, "IDLE", List.of(), List.of())),
                nullIn("GroupDescription.state",
                        () -> new GroupDescription("g", ErrorCode.NONE, 1, null, List.of(), List.of())),
                nullIn("GroupDescription.members",
                        () -> new GroupDescription("g", ErrorCode.NONE, 1, "IDLE", null, List.of())),
                nullIn("GroupDescription.partitions",
                        () -> new GroupDescription("g", ErrorCode.NONE, 1, "IDLE", List.of(), null)),
                nullIn("MemberDescription.consumerId", () -> new MemberDescription(null, "", SUBSCRIPTION, 1, -1)),
                nullIn("MemberDescription.host", () -> new MemberDescription("c", null, SUBSCRIPTION, 1, -1)),
                nullIn("MemberDescription.subscription", () -> new MemberDescription("c", "", null, 1, -1)),
                nullIn("PartitionDescription.topic", () -> new PartitionDescription(null, "p", null, -1, -1)),
                nullIn("PartitionDescription.partition", () -> new PartitionDescription("t", null, null, -1, -1)),
                nullIn("Header.kind", () -> new Header(null, ApiKey.PING, (short) 0, 1)),
                nullIn("Header.apiKey", () -> new Header(FrameKind.REQUEST, null, (short) 0, 1)),
                nullIn("Frame.header", () -> new Frame(null, new ConsultRequest())),
                nullIn("Frame.message", () -> Frame.request(1, null)));
    }

    private static Arguments nullIn(String field, Executable construction) {
        return Arguments.of(field, construction);
    }

    private static RegisterRequest register(String group, String consumer, Subscription s, OffsetReset reset) {
        return new RegisterRequest(group, consumer, s, true, reset, 1000, (short) 3, 1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nullFields")
    void nullsAreRejectedNamingTheField(String field, Executable construction) {
        NullPointerException e = assertThrows(NullPointerException.class, construction);
        assertTrue(e.getMessage().startsWith(field + " "), e::getMessage);
    }

    @Test
    void nullListElementsAreRejectedByIndex() {
        List<PartitionAssignment> assigned = Arrays.asList(new PartitionAssignment("t", "1-0", 0, 0), null);
        NullPointerException e = assertThrows(NullPointerException.class, () -> new StartRequest(1, 1, assigned));
        assertEquals("StartRequest.assigned[1] must not be null", e.getMessage());
    }

    @Test
    void listsAreCopiedAndImmutable() {
        List<PartitionOffset> offsets = new ArrayList<>(List.of(OFFSET));
        PingResponse ping = new PingResponse(ErrorCode.NONE, 1, offsets);
        offsets.clear();
        assertEquals(List.of(OFFSET), ping.offsets());
        assertThrows(UnsupportedOperationException.class, () -> ping.offsets().add(OFFSET));
    }

    @Test
    void nullableListsStayNull() {
        assertNull(new PingResponse(ErrorCode.NONE, 1, null).offsets());
        assertNull(new StopResponse(ErrorCode.NONE, null).offsets());
        assertNull(new LeaveRequest("g", "c", null).offsets());
    }

    @Test
    void frameRejectsAHeaderThatDisagreesWithItsMessage() {
        Header pingRequest = new Header(FrameKind.REQUEST, ApiKey.PING, (short) 0, 1);
        assertThrows(IllegalArgumentException.class,
                () -> new Frame(pingRequest, new PingResponse(ErrorCode.NONE, 1, null)));
        assertThrows(IllegalArgumentException.class, () -> new Frame(pingRequest, new StopRequest(1, 1)));
        Header unsupported = new Header(FrameKind.REQUEST, ApiKey.PING, (short) 1, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Frame(unsupported, new PingRequest(1, 1, (short) 0)));
        assertTrue(e.getMessage().contains("Unsupported version 1 of PING"), e::getMessage);
    }

    @Test
    void frameFactoriesUseTheNewestVersion() {
        Frame frame = Frame.request(5, new PingRequest(1, 2, (short) 0));
        assertEquals(new Header(FrameKind.REQUEST, ApiKey.PING, ApiKey.PING.maxVersion(), 5), frame.header());
        assertEquals(FrameKind.RESPONSE, Frame.response(5, StartResponse.ok()).header().kind());
    }

    @ParameterizedTest
    @EnumSource(ApiKey.class)
    void errorResponsesAreMinimalAndCarryTheError(ApiKey api) {
        Response response = Responses.errorResponse(api, ErrorCode.NOT_COORDINATOR);
        assertEquals(api, response.apiKey());
        assertEquals(ErrorCode.NOT_COORDINATOR, response.errorCode());
        assertThrows(IllegalArgumentException.class, () -> Responses.errorResponse(api, ErrorCode.NONE));
    }

    @Test
    void errorResponsesUseMinusOneAndEmptyOrNull() {
        assertEquals(new ConsultResponse(ErrorCode.UNKNOWN, -1, -1, List.of()), ConsultResponse.error(ErrorCode.UNKNOWN));
        assertEquals(new RegisterResponse(ErrorCode.UNKNOWN, -1, ""), RegisterResponse.error(ErrorCode.UNKNOWN));
        assertEquals(new PingResponse(ErrorCode.UNKNOWN, -1, null), PingResponse.error(ErrorCode.UNKNOWN));
        assertEquals(new StopResponse(ErrorCode.UNKNOWN, null), StopResponse.error(ErrorCode.UNKNOWN));
        assertEquals(new OffsetCommitResponse(ErrorCode.UNKNOWN, List.of()),
                OffsetCommitResponse.error(ErrorCode.UNKNOWN));
    }
}
