package shepherd.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import shepherd.consumer.session.SessionConfig;
import shepherd.protocol.BrokerInfo;
import shepherd.protocol.OffsetReset;
import shepherd.protocol.StaticSubscription;
import shepherd.protocol.Subscription;
import shepherd.protocol.TopicStreams;
import shepherd.protocol.WildcardKind;
import shepherd.protocol.WildcardSubscription;
import shepherd.testkit.SimWorld;

/**
 * The shape of one seeded run: how many brokers, which topics, which consumers in which groups, how the world is
 * timed. Drawn from the seed alone, so a seed names a whole run.
 *
 * <p>Timings are drawn so that both orders happen: a ZooKeeper session timeout shorter than the consumers' lease
 * (a deposed coordinator could still renew leases if nothing stopped it) and longer.
 */
public record Scenario(
        int brokers, List<String> topics, List<int[]> partitions, List<SessionConfig> consumers,
        SimWorld.Timing timing, long faultPhaseMs) {

    public static Scenario draw(Random random) {
        int brokers = 2 + random.nextInt(2);
        List<String> topics = new ArrayList<>(List.of("orders"));
        if (random.nextBoolean()) {
            topics.add("payments");
        }
        List<int[]> partitions = new ArrayList<>(); // {topic index, broker id, count}
        for (int t = 0; t < topics.size(); t++) {
            int holders = 1 + random.nextInt(brokers);
            for (int b = 1; b <= holders; b++) {
                partitions.add(new int[] {t, b, 1 + random.nextInt(3)});
            }
        }
        long zkDelay = 1 + random.nextInt(8);
        long netDelay = 1 + random.nextInt(8);
        long session = List.of(150L, 300L, 600L).get(random.nextInt(3));
        long driftPpm = List.of(0L, 10_000L, 50_000L).get(random.nextInt(3));
        SimWorld.Timing timing = new SimWorld.Timing(zkDelay, netDelay, session, 5, driftPpm);
        List<BrokerInfo> bootstrap = new ArrayList<>();
        for (int id = 1; id <= brokers; id++) {
            bootstrap.add(new BrokerInfo(id, "broker-" + id, 9092, "sim"));
        }
        int pingMs = 20 + 10 * random.nextInt(8);
        short retries = (short) (1 + random.nextInt(3));
        int groups = 1 + random.nextInt(2);
        int count = 2 + random.nextInt(4);
        List<SessionConfig> consumers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String group = "g" + (i % groups);
            Subscription subscription = i == 0 && random.nextInt(3) == 0
                    ? new WildcardSubscription(WildcardKind.WHITELIST, ".*", 1 + random.nextInt(2))
                    : new StaticSubscription(List.of(new TopicStreams(topics.get(random.nextInt(topics.size())),
                            1 + random.nextInt(2))));
            consumers.add(new SessionConfig(group, "c" + i, subscription, random.nextBoolean(), OffsetReset.SMALLEST,
                    pingMs, retries, bootstrap, 10, 200));
        }
        long faultPhase = 1_500 + random.nextInt(2_500);
        return new Scenario(brokers, topics, partitions, consumers, timing, faultPhase);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("Scenario[brokers=" + brokers + ", partitions=");
        partitions.forEach(p -> b.append(topics.get(p[0])).append('@').append(p[1]).append('×').append(p[2]).append(' '));
        b.append(", timing=").append(timing).append(", faultPhaseMs=").append(faultPhaseMs).append(", consumers=");
        consumers.forEach(c -> b.append("\n  ").append(c.groupId()).append('/').append(c.consumerId()).append(' ')
                .append(c.subscription()).append(" autoCommit=").append(c.autoCommit()).append(" ping=")
                .append(c.pingIntervalMs()).append("ms×").append(c.maxPingRetries() + 1));
        return b.append(']').toString();
    }

    /** The longest lease of any consumer. */
    public long leaseMaxMs() {
        return consumers.stream().mapToLong(SessionConfig::leaseMs).max().orElse(0);
    }
}
