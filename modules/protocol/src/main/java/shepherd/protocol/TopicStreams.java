package shepherd.protocol;

/** One entry of a static subscription: consume {@code topic} with {@code streams} streams. */
public record TopicStreams(String topic, int streams) {
    public TopicStreams {
        Checks.notNull(topic, "TopicStreams.topic");
    }
}
