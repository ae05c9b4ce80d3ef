package shepherd.protocol;

import java.util.Optional;

/**
 * Whether a wildcard subscription's pattern selects the topics it matches (whitelist) or every topic it does not
 * match (blacklist). The code is the subscription's {@code kind:int8} on the wire; 0 is the static subscription.
 */
public enum WildcardKind {
    WHITELIST(1),
    BLACKLIST(2);

    private final byte code;

    WildcardKind(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    public static Optional<WildcardKind> forCode(byte code) {
        for (WildcardKind kind : values()) {
            if (kind.code == code) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }
}
