package shepherd.protocol;

/**
 * What a consumer consumes: named topics with a number of streams each, or every topic a pattern selects.
 * On the wire: {@code kind:int8} (0 static, 1 whitelist, 2 blacklist), then the variant's fields.
 */
public sealed interface Subscription permits StaticSubscription, WildcardSubscription {}
