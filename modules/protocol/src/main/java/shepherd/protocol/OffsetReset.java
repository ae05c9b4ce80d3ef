package shepherd.protocol;

import java.util.Optional;

/**
 * Where a consumer starts a partition that has no committed offset (the seed's {@code auto_offset_rest}, typo
 * fixed). On the wire this is the string {@link #wireName()}, as in the seed; any other string is a decode error.
 */
public enum OffsetReset {
    SMALLEST("smallest"),
    LARGEST("largest");

    private final String wireName;

    OffsetReset(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<OffsetReset> forWireName(String name) {
        for (OffsetReset reset : values()) {
            if (reset.wireName.equals(name)) {
                return Optional.of(reset);
            }
        }
        return Optional.empty();
    }
}
