package shepherd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static shepherd.protocol.ExpectDecode.failsMentioning;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One test per class of malformed input: each must be a DecodeException whose reason names the field. */
class DecodeErrorsTest {
    private static final FrameCodec CODEC = new FrameCodec();

    /** A RegisterRequest body up to (not including) the subscription. */
    private static WireBytes registerUpToSubscription() {
        return WireBytes.request(ApiKey.REGISTER, 7).string("g1").string("c1");
    }

    /** A whole valid RegisterRequest after the subscription, for tests that break the subscription. */
    private static WireBytes restOfRegister(WireBytes bytes) {
        return bytes.int8(1).string("smallest").int32(1000).int16(3).int32(7);
    }

    @Nested
    class Truncation {
        @Test
        void truncatedHeaderNamesTheHeaderField() {
            DecodeException e = failsMentioning(CODEC, new byte[] {0, 0, 1}, "header.api_version", "truncated");
            assertFalse(e.headerRead());
            assertEquals(OptionalInt.empty(), e.correlationId());
        }

        @Test
        void truncatedIntNamesTheField() {
            byte[] body = WireBytes.request(ApiKey.PING, 1).int32(7).int16(0).body();
            failsMentioning(CODEC, body, "PingRequest.generation", "int32 needs 4 bytes, 2 remaining");
        }

        @Test
        void stringLongerThanTheRemainingBytesIsRejectedBeforeReading() {
            byte[] body = WireBytes.request(ApiKey.REGISTER, 1).int16(30000).raw((byte) 'g', (byte) '1').body();
            failsMentioning(CODEC, body, "RegisterRequest.group_id", "string length 30000 exceeds remaining 2 bytes");
        }

        @Test
        void truncatedArrayElementNamesTheElement() {
            byte[] body = WireBytes.request(ApiKey.START, 1).int32(7).int32(5).int32(2)
                    .string("orders").string("1-0").int64(43).int32(0)
                    .string("orders").string("2-0").int64(0).body();
            failsMentioning(CODEC, body, "StartRequest.assigned[1].stream", "truncated");
        }
    }

    @Nested
    class LengthsAndCounts {
        @Test
        void negativeStringLength() {
            byte[] body = WireBytes.request(ApiKey.LEAVE, 1).string("g1").int16(-2).int32(-1).body();
            failsMentioning(CODEC, body, "LeaveRequest.consumer_id", "negative string length -2");
        }

        @Test
        void nullStringWhereNoneIsAllowed() {
            byte[] body = WireBytes.response(ApiKey.REGISTER, 1).int16(0).int32(7).int16(-1).body();
            failsMentioning(CODEC, body, "RegisterResponse.consumer_id", "null string");
        }

        @Test
        void negativeArrayCount() {
            byte[] body = WireBytes.request(ApiKey.START, 1).int32(7).int32(5).int32(-5).body();
            failsMentioning(CODEC, body, "StartRequest.assigned", "negative array count -5");
        }

        @Test
        void nullArrayWhereNoneIsAllowed() {
            byte[] body = WireBytes.request(ApiKey.OFFSET_COMMIT, 1).string("g1").string("c1").int32(7).int32(5)
                    .int32(-1).body();
            failsMentioning(CODEC, body, "OffsetCommitRequest.offsets", "null array");
        }

        @Test
        void minusOneIsNullOnlyInANullableArray() throws DecodeException {
            byte[] nullOffsets = WireBytes.response(ApiKey.PING, 1).int16(0).int32(4).int32(-1).body();
            PingResponse ping = (PingResponse) CODEC.decode(ByteBuffer.wrap(nullOffsets)).message();
            assertNull(ping.offsets());

            byte[] minusTwo = WireBytes.response(ApiKey.PING, 1).int16(0).int32(4).int32(-2).body();
            failsMentioning(CODEC, minusTwo, "PingResponse.offsets", "negative array count -2");
        }

        @Test
        void countThatCannotFitIsRejectedBeforeAllocating() {
            byte[] body = WireBytes.request(ApiKey.START, 1).int32(7).int32(5).int32(Integer.MAX_VALUE)
                    .raw(new byte[20]).body();
            failsMentioning(CODEC, body, "StartRequest.assigned",
                    "array count 2147483647 needs at least 34359738352 bytes, 20 remaining");
        }

        @Test
        void countJustOverWhatFitsIsRejected() {
            // Two PartitionOffsets need at least 2 × 12 bytes; give 23.
            byte[] body = WireBytes.response(ApiKey.STOP, 1).int16(0).int32(2).raw(new byte[23]).body();
            failsMentioning(CODEC, body, "StopResponse.offsets", "needs at least 24 bytes, 23 remaining");
        }
    }

    @Nested
    class UnknownCodes {
        @Test
        void unknownFrameKind() {
            DecodeException e = failsMentioning(CODEC, WireBytes.header(2, 0, 0, 9).body(),
                    "header.kind", "unknown frame kind 2");
            assertEquals(OptionalInt.of(9), e.correlationId());
            assertEquals(Optional.empty(), e.kind());
            assertEquals(2, e.rawKind());
        }

        @Test
        void unknownApiKey() {
            DecodeException e = failsMentioning(CODEC, WireBytes.header(0, 8, 0, 9).body(),
                    "header.api_key", "unknown api key 8");
            assertEquals(Optional.of(FrameKind.REQUEST), e.kind());
            assertEquals(Optional.empty(), e.apiKey());
            assertEquals(8, e.rawApiKey());
        }

        @Test
        void unsupportedVersion() {
            DecodeException e = failsMentioning(CODEC, WireBytes.header(0, 2, 1, 9).int32(7).int32(4).int16(0)
                    .body(), "header.api_version", "unsupported version 1 of PING");
            assertEquals(Optional.of(ApiKey.PING), e.apiKey());
            assertEquals(1, e.rawApiVersion());
        }

        @Test
        void unknownErrorCode() {
            failsMentioning(CODEC, WireBytes.response(ApiKey.START, 1).int16(11).body(),
                    "StartResponse.error_code", "unknown error code 11");
        }

        @Test
        void unknownErrorCodeInAnArrayElement() {
            byte[] body = WireBytes.response(ApiKey.OFFSET_COMMIT, 1).int16(0).int32(2)
                    .string("orders").string("1-0").int16(0)
                    .string("orders").string("2-0").int16(-2).body();
            failsMentioning(CODEC, body, "OffsetCommitResponse.results[1].error_code", "unknown error code -2");
        }

        @Test
        void unknownSubscriptionKind() {
            byte[] body = restOfRegister(registerUpToSubscription().int8(3).string("x").int32(1)).body();
            failsMentioning(CODEC, body, "RegisterRequest.subscription.kind", "unknown subscription kind 3");
        }

        @Test
        void unknownOffsetResetString() {
            byte[] body = registerUpToSubscription().int8(0).int32(0).int8(1).string("smalest")
                    .int32(1000).int16(3).int32(7).body();
            failsMentioning(CODEC, body, "RegisterRequest.auto_offset_reset", "\"smalest\"");
        }

        @Test
        void longBadValuesAreQuotedShort() {
            String junk = "x".repeat(5000);
            byte[] body = registerUpToSubscription().int8(0).int32(0).int8(1).string(junk)
                    .int32(1000).int16(3).int32(7).body();
            DecodeException e = failsMentioning(CODEC, body, "RegisterRequest.auto_offset_reset", "(5000 chars)");
            assertTrue(e.reason().length() < 300, e::reason);
        }
    }

    @Nested
    class Values {
        @ParameterizedTest
        @ValueSource(ints = {2, -1, 0x7F})
        void boolMustBeZeroOrOne(int value) {
            byte[] body = registerUpToSubscription().int8(0).int32(0).int8(value).string("smallest")
                    .int32(1000).int16(3).int32(7).body();
            failsMentioning(CODEC, body, "RegisterRequest.auto_commit", "bool must be 0 or 1, got " + (byte) value);
        }

        @ParameterizedTest
        @ValueSource(strings = {
            "80",           // a continuation byte with no lead
            "c0af",         // overlong encoding of '/'
            "e08080",       // overlong encoding of U+0000
            "eda080",       // a UTF-16 surrogate (U+D800) encoded as if it were a character
            "f4908080",     // U+110000, beyond Unicode
            "e282",         // a 3-byte sequence cut short
            "ff"            // never valid in UTF-8
        })
        void invalidUtf8IsRejected(String hex) {
            byte[] utf8 = java.util.HexFormat.of().parseHex(hex);
            byte[] body = WireBytes.request(ApiKey.LEAVE, 1).int16(utf8.length + 1).raw((byte) 'g').raw(utf8)
                    .string("c1").int32(-1).body();
            failsMentioning(CODEC, body, "LeaveRequest.group_id", "invalid UTF-8 at byte 1 of " + (utf8.length + 1));
        }

        @Test
        void invalidUtf8DeepInsideNamesTheWholePath() {
            WireBytes bytes = registerUpToSubscription().int8(0).int32(2).string("ok").int32(1)
                    .int16(2).raw((byte) 0xC3, (byte) 0x28).int32(1);
            failsMentioning(CODEC, restOfRegister(bytes).body(), "RegisterRequest.subscription.topics[1].topic",
                    "invalid UTF-8");
        }

        @Test
        void validMultiByteUtf8IsAccepted() throws DecodeException {
            String text = "é€😀";
            byte[] body = WireBytes.request(ApiKey.LEAVE, 1).string(text).string("c1").int32(-1).body();
            LeaveRequest leave = (LeaveRequest) CODEC.decode(ByteBuffer.wrap(body)).message();
            assertEquals(text, leave.groupId());
        }
    }

    @Nested
    class Framing {
        @Test
        void trailingBytesAfterTheLastField() {
            byte[] body = WireBytes.request(ApiKey.PING, 1).int32(7).int32(4).int16(0).int8(0).body();
            failsMentioning(CODEC, body, "PingRequest", "1 trailing bytes after the last field");
        }

        @Test
        void trailingBytesAfterAnEmptyBody() {
            failsMentioning(CODEC, WireBytes.request(ApiKey.CONSULT, 1).int16(0).body(),
                    "ConsultRequest", "2 trailing bytes");
        }

        @Test
        void sizePrefixShorterThanFourBytes() {
            DecodeException e = ExpectDecode.failsSized(CODEC, new byte[] {0, 0, 9});
            assertTrue(e.reason().startsWith("frame.size: truncated"), e::reason);
        }

        @Test
        void negativeSize() {
            DecodeException e = ExpectDecode.failsSized(CODEC, new WireBytes().int32(-9)
                    .raw(WireBytes.request(ApiKey.CONSULT, 1).body()).body());
            assertTrue(e.reason().contains("frame.size: negative size -9"), e::reason);
            assertEquals(OptionalInt.of(1), e.correlationId());
        }

        @Test
        void sizeDisagreeingWithTheBytesPresent() {
            byte[] body = WireBytes.request(ApiKey.CONSULT, 1).body();
            DecodeException shorter = ExpectDecode.failsSized(CODEC, new WireBytes().int32(10).raw(body).body());
            assertTrue(shorter.reason().contains("says 10 bytes follow, but 9 do"), shorter::reason);
            DecodeException longer = ExpectDecode.failsSized(CODEC, new WireBytes().int32(9).raw(body).int8(0)
                    .body());
            assertTrue(longer.reason().contains("says 9 bytes follow, but 10 do"), longer::reason);
        }

        @Test
        void exceptionCarriesContextButNoStackTrace() {
            DecodeException e = ExpectDecode.fails(CODEC, WireBytes.request(ApiKey.STOP, 77).int32(7).body());
            assertEquals(OptionalInt.of(77), e.correlationId());
            assertEquals(Optional.of(FrameKind.REQUEST), e.kind());
            assertEquals(Optional.of(ApiKey.STOP), e.apiKey());
            assertEquals(0, e.getStackTrace().length);
            assertTrue(e.getMessage().startsWith(e.reason()));
            assertTrue(e.getMessage().contains("correlation_id=77"), e::getMessage);
        }

        @Test
        void decodedMessagesHoldImmutableLists() throws DecodeException {
            byte[] body = WireBytes.response(ApiKey.STOP, 1).int16(0).int32(1).partitionOffset("t", "1-0", 5)
                    .body();
            StopResponse stop = (StopResponse) CODEC.decode(ByteBuffer.wrap(body)).message();
            assertEquals(List.of(new PartitionOffset("t", "1-0", 5)), stop.offsets());
            org.junit.jupiter.api.Assertions.assertThrows(UnsupportedOperationException.class,
                    () -> stop.offsets().clear());
        }
    }

    /** The DescribeGroups layouts: the one nullable string, and the minimum sizes of its nested arrays. */
    @Nested
    class DescribeGroups {
        /** A DescribeGroupsResponse body up to (not including) its one group's members array. */
        private WireBytes oneGroupUpToMembers() {
            return WireBytes.response(ApiKey.DESCRIBE_GROUPS, 1).int16(0).int32(2).int32(7).int32(1)
                    .string("g1").int16(0).int32(4).string("IDLE");
        }

        @Test
        void nullOwnerIsNullButMinusTwoIsMalformed() throws DecodeException {
            byte[] nullOwner = oneGroupUpToMembers().int32(0).int32(1)
                    .string("orders").string("1-0").int16(-1).int32(-1).int64(-1).body();
            DescribeGroupsResponse response = (DescribeGroupsResponse) CODEC.decode(ByteBuffer.wrap(nullOwner))
                    .message();
            assertNull(response.groups().get(0).partitions().get(0).owner());

            byte[] minusTwo = oneGroupUpToMembers().int32(0).int32(1)
                    .string("orders").string("1-0").int16(-2).int32(-1).int64(-1).body();
            failsMentioning(CODEC, minusTwo, "DescribeGroupsResponse.groups[0].partitions[0].owner",
                    "negative string length -2");
        }

        @Test
        void nullStateIsMalformed() {
            byte[] body = WireBytes.response(ApiKey.DESCRIBE_GROUPS, 1).int16(0).int32(2).int32(7).int32(1)
                    .string("g1").int16(0).int32(4).int16(-1).int32(0).int32(0).body();
            failsMentioning(CODEC, body, "DescribeGroupsResponse.groups[0].state", "null string");
        }

        @Test
        void nullHostIsMalformed() {
            // Only PartitionDescription.owner is nullable; an unknown host is the empty string.
            byte[] body = oneGroupUpToMembers().int32(1).string("c1").int16(-1).int8(0).int32(0)
                    .int32(1000).int64(12).int32(0).body();
            failsMentioning(CODEC, body, "DescribeGroupsResponse.groups[0].members[0].host", "null string");
        }

        @Test
        void groupCountIsCheckedAgainstTheMinimumGroupSize() {
            // One GroupDescription needs at least 18 bytes; give 17.
            byte[] body = WireBytes.response(ApiKey.DESCRIBE_GROUPS, 1).int16(0).int32(2).int32(7).int32(1)
                    .raw(new byte[17]).body();
            failsMentioning(CODEC, body, "DescribeGroupsResponse.groups", "needs at least 18 bytes, 17 remaining");
        }

        @Test
        void memberCountIsCheckedAgainstTheMinimumMemberSize() {
            // Two MemberDescriptions need at least 2 × 21 bytes; 41 follow (counting the partitions count).
            byte[] body = oneGroupUpToMembers().int32(2).raw(new byte[37]).int32(0).body();
            failsMentioning(CODEC, body, "DescribeGroupsResponse.groups[0].members",
                    "needs at least 42 bytes, 41 remaining");
        }

        @Test
        void unknownSubscriptionKindInAMember() {
            byte[] body = oneGroupUpToMembers().int32(1).string("c1").string("10.0.0.7").int8(5).string("x").int32(1)
                    .int32(1000).int64(12).int32(0).body();
            failsMentioning(CODEC, body, "DescribeGroupsResponse.groups[0].members[0].subscription.kind",
                    "unknown subscription kind 5");
        }

        @Test
        void unknownErrorCodeOfAGroup() {
            byte[] body = WireBytes.response(ApiKey.DESCRIBE_GROUPS, 1).int16(0).int32(2).int32(7).int32(1)
                    .string("g1").int16(42).int32(4).string("IDLE").int32(0).int32(0).body();
            failsMentioning(CODEC, body, "DescribeGroupsResponse.groups[0].error_code", "unknown error code 42");
        }

        @Test
        void truncatedLastPingAge() {
            byte[] body = oneGroupUpToMembers().int32(1).string("c1").string("10.0.0.7").int8(0).int32(1)
                    .string("orders").int32(1).int32(1000).int32(0).body();
            failsMentioning(CODEC, body, "DescribeGroupsResponse.groups[0].members[0].last_ping_age_ms",
                    "int64 needs 8 bytes, 4 remaining");
        }

        @Test
        void nullGroupIdInTheRequest() {
            byte[] body = WireBytes.request(ApiKey.DESCRIBE_GROUPS, 1).int32(2).string("g1").int16(-1).body();
            failsMentioning(CODEC, body, "DescribeGroupsRequest.group_ids[1].group_id", "null string");
        }

        @Test
        void groupIdCountIsCheckedBeforeAllocating() {
            byte[] body = WireBytes.request(ApiKey.DESCRIBE_GROUPS, 1).int32(Integer.MAX_VALUE).raw(new byte[6])
                    .body();
            failsMentioning(CODEC, body, "DescribeGroupsRequest.group_ids",
                    "array count 2147483647 needs at least 4294967294 bytes, 6 remaining");
        }
    }
}
