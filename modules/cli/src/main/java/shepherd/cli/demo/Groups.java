package shepherd.cli.demo;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import shepherd.cli.local.LocalCluster;
import shepherd.consumer.ConsumerConfig;
import shepherd.protocol.OffsetReset;

/**
 * The demo's consumer groups and their members, past and present: {@code billing} subscribes to the topic by name,
 * {@code audit} through a whitelist pattern. Members are named {@code <group>-<n>}, n counting from 1 per group.
 */
final class Groups {
    static final String BILLING = "billing";
    static final String AUDIT = "audit";
    /** Short leases (200 ms pings, 4 retries: L = 1 s) so failures and failovers resolve within a demo. */
    static final int PING_INTERVAL_MS = 200;
    static final int MAX_PING_RETRIES = 4;

    private final LocalCluster cluster;
    private final Path root;
    private final DeliveryLog log;
    private final Map<String, Member.Subscription> subscriptions = new LinkedHashMap<>();
    private final Map<String, List<Member>> members = new LinkedHashMap<>();
    private final Map<String, Integer> nextIndex = new LinkedHashMap<>();

    Groups(LocalCluster cluster, Path root, DeliveryLog log, String topic) {
        this.cluster = cluster;
        this.root = root;
        this.log = log;
        subscriptions.put(BILLING, new Member.Subscription.Static(topic));
        subscriptions.put(AUDIT, new Member.Subscription.Whitelist(topic.substring(0, 2) + ".*"));
        subscriptions.keySet().forEach(g -> {
            members.put(g, new CopyOnWriteArrayList<>());
            nextIndex.put(g, 1);
            log.register(g);
        });
    }

    List<String> names() {
        return List.copyOf(subscriptions.keySet());
    }

    Member.Subscription subscription(String group) {
        return subscriptions.get(group);
    }

    /** Starts the next member of {@code group}, bootstrapping from the brokers running now. */
    synchronized Member join(String group) {
        int n = nextIndex.merge(group, 1, Integer::sum) - 1;
        ConsumerConfig config = ConsumerConfig.builder()
                .bootstrap(cluster.bootstrap())
                .groupId(group)
                .consumerId(group + "-" + n)
                .autoOffsetReset(OffsetReset.SMALLEST)
                .pingIntervalMs(PING_INTERVAL_MS)
                .maxPingRetries(MAX_PING_RETRIES)
                .source("file", Map.of("root", root.toString()))
                .queuedRecordsMax(50)
                .fetchWaitMs(20)
                .shutdownTimeoutMs(3_000)
                .build();
        Member m = Member.start(config, subscriptions.get(group), log);
        members.get(group).add(m);
        return m;
    }

    /** Every member ever started in {@code group}, in order. */
    List<Member> all(String group) {
        return List.copyOf(members.get(group));
    }

    List<Member> alive(String group) {
        return members.get(group).stream().filter(Member::alive).toList();
    }

    List<Member> everyone() {
        List<Member> out = new ArrayList<>();
        members.values().forEach(out::addAll);
        return out;
    }
}
