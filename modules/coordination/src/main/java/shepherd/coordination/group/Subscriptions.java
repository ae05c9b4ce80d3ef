package shepherd.coordination.group;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import shepherd.coordination.Registration;
import shepherd.protocol.IdRule;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.Subscription;
import shepherd.protocol.TopicStreams;
import shepherd.protocol.WildcardKind;
import shepherd.protocol.WildcardSubscription;

/**
 * Resolves subscriptions against the topics that exist (seed rebalance step 1, and the wildcard groups of
 * TopicChangeListener 2.2) and validates registrations (D11: a bad regex is an INVALID_REGISTRATION with the
 * reason, and disturbs nothing else).
 */
public final class Subscriptions {
    static final int STREAMS_MAX = 1_024;
    static final int TOPICS_MAX = 10_000;
    static final int PING_INTERVAL_MS_MIN = 10;
    static final int PING_INTERVAL_MS_MAX = 3_600_000;
    static final int PING_RETRIES_MAX = 100;

    private Subscriptions() {}

    /** topic → number of streams, for the topics that exist now. */
    static Map<String, Integer> streamsByTopic(Subscription subscription, Collection<String> existingTopics) {
        Map<String, Integer> out = new TreeMap<>();
        if (subscription instanceof StaticSubscription s) {
            for (TopicStreams t : s.topics()) {
                out.merge(t.topic(), t.streams(), Math::max);
            }
            return out;
        }
        WildcardSubscription w = (WildcardSubscription) subscription;
        Pattern pattern = Pattern.compile(w.pattern());
        for (String topic : existingTopics) {
            boolean matches = pattern.matcher(topic).matches();
            if (matches == (w.kind() == WildcardKind.WHITELIST)) {
                out.put(topic, w.streams());
            }
        }
        return out;
    }

    /** Whether a change to {@code topic} can matter to this subscription. */
    static boolean interestedIn(Subscription subscription, String topic) {
        if (subscription instanceof StaticSubscription s) {
            return s.topics().stream().anyMatch(t -> t.topic().equals(topic));
        }
        return true; // a wildcard's match set changes with any topic
    }

    /** Empty when the registration is acceptable, else the reason it is not. */
    static Optional<String> invalid(String groupId, String consumerId, Registration r) {
        Optional<String> bad = invalidId("group_id", groupId).or(() -> invalidId("consumer_id", consumerId));
        if (bad.isPresent()) {
            return bad;
        }
        if (r.pingIntervalMs() < PING_INTERVAL_MS_MIN || r.pingIntervalMs() > PING_INTERVAL_MS_MAX) {
            return Optional.of("ping_interval_ms " + r.pingIntervalMs() + " is outside [" + PING_INTERVAL_MS_MIN
                    + ", " + PING_INTERVAL_MS_MAX + "]");
        }
        if (r.maxPingRetries() < 0 || r.maxPingRetries() > PING_RETRIES_MAX) {
            return Optional.of("max_ping_retries " + r.maxPingRetries() + " is outside [0, " + PING_RETRIES_MAX + "]");
        }
        return invalidSubscription(r.subscription());
    }

    private static Optional<String> invalidSubscription(Subscription subscription) {
        if (subscription instanceof StaticSubscription s) {
            if (s.topics().isEmpty()) {
                return Optional.of("the subscription names no topic");
            }
            if (s.topics().size() > TOPICS_MAX) {
                return Optional.of("the subscription names " + s.topics().size() + " topics, more than " + TOPICS_MAX);
            }
            for (TopicStreams t : s.topics()) {
                Optional<String> bad = invalidId("topic", t.topic()).or(() -> invalidStreams(t.topic(), t.streams()));
                if (bad.isPresent()) {
                    return bad;
                }
            }
            return Optional.empty();
        }
        WildcardSubscription w = (WildcardSubscription) subscription;
        try {
            Pattern.compile(w.pattern());
        } catch (PatternSyntaxException e) {
            return Optional.of("pattern " + quoted(w.pattern()) + " is not a valid regular expression: "
                    + e.getDescription() + " near index " + e.getIndex());
        }
        return invalidStreams("pattern " + quoted(w.pattern()), w.streams());
    }

    private static Optional<String> invalidStreams(String what, int streams) {
        if (streams < 1 || streams > STREAMS_MAX) {
            return Optional.of("streams " + streams + " for " + what + " is outside [1, " + STREAMS_MAX + "]");
        }
        return Optional.empty();
    }

    /** Ids become znode names: the shared {@link IdRule}, with the field named first. */
    public static Optional<String> invalidId(String field, String value) {
        return IdRule.violation(value).map(reason -> field + " " + reason);
    }

    private static String quoted(String s) {
        return "'" + s + "'";
    }
}
