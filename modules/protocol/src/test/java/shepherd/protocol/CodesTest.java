package shepherd.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The wire codes are a contract: pinned here one by one, never derived from ordinals. */
class CodesTest {
    @Test
    void apiKeysHaveTheirDesignIds() {
        Map<ApiKey, Integer> ids = new LinkedHashMap<>();
        ids.put(ApiKey.CONSULT, 0);
        ids.put(ApiKey.REGISTER, 1);
        ids.put(ApiKey.PING, 2);
        ids.put(ApiKey.STOP, 3);
        ids.put(ApiKey.START, 4);
        ids.put(ApiKey.OFFSET_COMMIT, 5);
        ids.put(ApiKey.LEAVE, 6);
        ids.put(ApiKey.DESCRIBE_GROUPS, 7);
        assertEquals(EnumSet.allOf(ApiKey.class), ids.keySet());
        ids.forEach((api, id) -> {
            assertEquals(id.shortValue(), api.id());
            assertEquals(Optional.of(api), ApiKey.forId(id.shortValue()));
        });
        assertEquals(Optional.empty(), ApiKey.forId((short) 8));
        assertEquals(Optional.empty(), ApiKey.forId((short) -1));
    }

    @Test
    void everyApiIsVersionZeroOnly() {
        for (ApiKey api : ApiKey.values()) {
            assertEquals(0, api.minVersion());
            assertEquals(0, api.maxVersion());
            assertTrue(api.supportsVersion((short) 0));
            assertFalse(api.supportsVersion((short) 1));
            assertFalse(api.supportsVersion((short) -1));
        }
    }

    @Test
    void errorCodesHaveTheirDesignCodesAndRetriableFlags() {
        Map<ErrorCode, Integer> codes = new LinkedHashMap<>();
        codes.put(ErrorCode.NONE, 0);
        codes.put(ErrorCode.UNKNOWN, -1);
        codes.put(ErrorCode.NOT_COORDINATOR, 1);
        codes.put(ErrorCode.COORDINATOR_NOT_READY, 2);
        codes.put(ErrorCode.INVALID_REGISTRATION, 3);
        codes.put(ErrorCode.STALE_COORDINATOR_EPOCH, 4);
        codes.put(ErrorCode.ILLEGAL_GENERATION, 5);
        codes.put(ErrorCode.UNKNOWN_CONSUMER, 6);
        codes.put(ErrorCode.REBALANCE_IN_PROGRESS, 7);
        codes.put(ErrorCode.INVALID_REQUEST, 8);
        codes.put(ErrorCode.UNSUPPORTED_VERSION, 9);
        codes.put(ErrorCode.NOT_OWNER, 10);
        assertEquals(EnumSet.allOf(ErrorCode.class), codes.keySet());
        codes.forEach((error, code) -> {
            assertEquals(code.shortValue(), error.code());
            assertEquals(Optional.of(error), ErrorCode.forCode(code.shortValue()));
        });
        assertEquals(Optional.empty(), ErrorCode.forCode((short) 11));
        assertEquals(Optional.empty(), ErrorCode.forCode((short) -2));

        EnumSet<ErrorCode> retriable = EnumSet.of(
                ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_READY, ErrorCode.REBALANCE_IN_PROGRESS);
        for (ErrorCode error : ErrorCode.values()) {
            assertEquals(retriable.contains(error), error.retriable(), error::toString);
        }
    }

    @Test
    void frameKindsSubscriptionKindsAndOffsetResets() {
        assertEquals(0, FrameKind.REQUEST.code());
        assertEquals(1, FrameKind.RESPONSE.code());
        assertEquals(Optional.of(FrameKind.RESPONSE), FrameKind.forCode((byte) 1));
        assertEquals(Optional.empty(), FrameKind.forCode((byte) 2));
        assertEquals(FrameKind.REQUEST, FrameKind.of(new ConsultRequest()));
        assertEquals(FrameKind.RESPONSE, FrameKind.of(StartResponse.ok()));

        assertEquals(1, WildcardKind.WHITELIST.code());
        assertEquals(2, WildcardKind.BLACKLIST.code());
        assertEquals(Optional.empty(), WildcardKind.forCode((byte) 0));

        assertEquals("smallest", OffsetReset.SMALLEST.wireName());
        assertEquals("largest", OffsetReset.LARGEST.wireName());
        assertEquals(Optional.of(OffsetReset.LARGEST), OffsetReset.forWireName("largest"));
        assertEquals(Optional.empty(), OffsetReset.forWireName("LARGEST"));
    }
}
