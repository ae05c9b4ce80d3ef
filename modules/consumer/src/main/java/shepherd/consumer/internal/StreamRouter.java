package shepherd.consumer.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which queue a Start's {@code (topic, stream)} feeds: per topic for {@code createMessageStreams}, one list for
 * every matching topic for {@code createMessageStreamsByFilter} (the stream index is the coordinator's, DESIGN §6).
 */
public final class StreamRouter {
    private final Map<String, List<StreamQueue>> byTopic;
    private final List<StreamQueue> wildcard;

    private StreamRouter(Map<String, List<StreamQueue>> byTopic, List<StreamQueue> wildcard) {
        this.byTopic = byTopic;
        this.wildcard = wildcard;
    }

    public static StreamRouter byTopic(Map<String, List<StreamQueue>> queues) {
        return new StreamRouter(Map.copyOf(queues), null);
    }

    public static StreamRouter wildcard(List<StreamQueue> queues) {
        return new StreamRouter(null, List.copyOf(queues));
    }

    /** A new queue for one stream. */
    public static StreamQueue newQueue(int capacity, ConsumerRuntime runtime) {
        return new StreamQueue(capacity, runtime.takenOffsets(), runtime.leaseGate());
    }

    Optional<StreamQueue> queueFor(String topic, int stream) {
        List<StreamQueue> queues = wildcard != null ? wildcard : byTopic.get(topic);
        if (queues == null || stream < 0 || stream >= queues.size()) {
            return Optional.empty();
        }
        return Optional.of(queues.get(stream));
    }

    List<StreamQueue> all() {
        if (wildcard != null) {
            return wildcard;
        }
        List<StreamQueue> out = new ArrayList<>();
        byTopic.values().forEach(out::addAll);
        return out;
    }
}
