package shepherd.protocol;

/**
 * Subscription kind 1 (whitelist) or 2 (blacklist): {@code pattern:string, streams:int32}. The pattern is carried
 * as text; whether it is a valid regular expression is the coordinator's call (INVALID_REGISTRATION, DESIGN D11),
 * not the codec's.
 */
public record WildcardSubscription(WildcardKind kind, String pattern, int streams) implements Subscription {
    public WildcardSubscription {
        Checks.notNull(kind, "WildcardSubscription.kind");
        Checks.notNull(pattern, "WildcardSubscription.pattern");
    }
}
