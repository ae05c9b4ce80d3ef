package shepherd.cli.local;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import shepherd.broker.BrokerConfig;

/** What a built {@link LocalCluster} runs with; every value already checked by {@link LocalClusterBuilder#build}. */
record ClusterSettings(int brokers, Map<String, String> timings, Optional<String> externalZooKeeper, String chroot) {

    long sessionTimeoutMs() {
        return Long.parseLong(timings.get(BrokerConfig.SESSION_TIMEOUT_MS));
    }

    String chrootSuffix() {
        return chroot.equals("/") ? "" : chroot;
    }

    BrokerConfig brokerConfig(int id, String zookeeperConnect) {
        Map<String, String> overrides = new LinkedHashMap<>(timings);
        overrides.put(BrokerConfig.LISTEN_HOST, LocalCluster.HOST);
        overrides.put(BrokerConfig.LISTEN_PORT, "0");
        return BrokerConfig.defaults(id, zookeeperConnect).withOverrides(overrides);
    }
}
