package shepherd.protocol;

import java.util.List;

/** Subscription kind 0: {@code topics:[topic:string, streams:int32]}. */
public record StaticSubscription(List<TopicStreams> topics) implements Subscription {
    public StaticSubscription {
        topics = Checks.list(topics, "StaticSubscription.topics");
    }
}
