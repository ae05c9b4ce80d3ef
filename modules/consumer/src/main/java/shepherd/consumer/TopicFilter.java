package shepherd.consumer;

import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import shepherd.protocol.WildcardKind;

/**
 * The topics a wildcard subscription follows (Kafka 0.8's {@code Whitelist}/{@code Blacklist}): every topic whose
 * whole name the regular expression matches, or every topic it does not. The coordinator re-evaluates it as topics
 * appear. A pattern that does not compile is refused here, with the reason, before anything is sent.
 */
public record TopicFilter(WildcardKind kind, String pattern) {
    public TopicFilter {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(pattern, "pattern");
        try {
            Pattern.compile(pattern);
        } catch (PatternSyntaxException e) {
            throw new InvalidConsumerConfigException("topicFilter", "pattern '" + pattern
                    + "' is not a valid regular expression: " + e.getDescription() + " near index " + e.getIndex());
        }
    }

    /** The topics whose names match {@code regex}. */
    public static TopicFilter whitelist(String regex) {
        return new TopicFilter(WildcardKind.WHITELIST, regex);
    }

    /** The topics whose names do not match {@code regex}. */
    public static TopicFilter blacklist(String regex) {
        return new TopicFilter(WildcardKind.BLACKLIST, regex);
    }
}
