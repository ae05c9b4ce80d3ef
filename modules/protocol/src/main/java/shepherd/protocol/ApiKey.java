package shepherd.protocol;

import java.util.Optional;

/**
 * The request types of the protocol, with their wire ids ({@code api_key:int16}) and the versions this build speaks.
 * Ids are explicit and never derived from the ordinal: reordering the constants must not change the wire.
 */
public enum ApiKey {
    CONSULT(0, 0, 0),
    REGISTER(1, 0, 0),
    PING(2, 0, 0),
    STOP(3, 0, 0),
    START(4, 0, 0),
    OFFSET_COMMIT(5, 0, 0),
    LEAVE(6, 0, 0),
    DESCRIBE_GROUPS(7, 0, 0);

    private static final ApiKey[] VALUES = values();

    private final short id;
    private final short minVersion;
    private final short maxVersion;

    ApiKey(int id, int minVersion, int maxVersion) {
        this.id = (short) id;
        this.minVersion = (short) minVersion;
        this.maxVersion = (short) maxVersion;
    }

    public short id() {
        return id;
    }

    public short minVersion() {
        return minVersion;
    }

    public short maxVersion() {
        return maxVersion;
    }

    public boolean supportsVersion(short version) {
        return version >= minVersion && version <= maxVersion;
    }

    public static Optional<ApiKey> forId(short id) {
        for (ApiKey key : VALUES) {
            if (key.id == id) {
                return Optional.of(key);
            }
        }
        return Optional.empty();
    }
}
