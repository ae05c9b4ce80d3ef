package shepherd.zookeeper;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.coordination.CoordinatorEvent;
import shepherd.protocol.BrokerInfo;

/**
 * This broker's ephemeral {@code /brokers/ids/[id]}, created again after every new session. A node held by another
 * live session is a duplicate id (fatal, typed); one left by an earlier session of this process is stale and is
 * replaced. Runs on the adapter's thread.
 */
final class BrokerRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperAdapter.class);

    private final ZooKeeperAdapter adapter;
    private final Set<Long> pastSessionIds = new HashSet<>();
    private BrokerInfo broker;
    private long conflictSinceMs = Long.MIN_VALUE;
    private long conflictOwner;
    private CompletableFuture<Void> brokerRegistered;

    BrokerRegistry(ZooKeeperAdapter adapter) {
        this.adapter = adapter;
    }

    /** Registers {@code info} now if the session is up; otherwise its establishment will. */
    void register(ZkSession s, BrokerInfo info, CompletableFuture<Void> done) {
        broker = info;
        brokerRegistered = done;
        if (s.established) {
            register(s);
        }
    }

    /** Every new session registers the broker again: the ephemeral node died with the old one. */
    void sessionEstablished(ZkSession s) {
        if (broker != null) {
            register(s);
        }
    }

    /** A node owned by an ended session of ours is stale, never a duplicate. */
    void sessionEnded(long sessionId) {
        pastSessionIds.add(sessionId);
    }

    private void register(ZkSession s) {
        BrokerInfo info = broker;
        String path = ZkPaths.broker(info.id());
        s.zk.create(path, ZnodeCodec.encodeBroker(info), CreateMode.EPHEMERAL,
                (rc, p, ctx, name) -> adapter.answered(s, rc, () -> {
                    Code code = Code.get(rc);
                    if (code == Code.OK) {
                        LOG.info("registered broker {} at {}", info.id(), path);
                        brokerRegistered.complete(null);
                    } else if (code == Code.NODEEXISTS) {
                        resolveExistingBroker(s, info, path);
                    } else {
                        adapter.retryLater(s, () -> register(s));
                    }
                }));
    }

    /** Ours (a lost reply), ours but stale (an earlier session of this process), or another broker's. */
    private void resolveExistingBroker(ZkSession s, BrokerInfo info, String path) {
        s.zk.getData(path, false, (rc, p, ctx, data, stat) -> adapter.answered(s, rc, () -> {
            Code code = Code.get(rc);
            if (code == Code.NONODE) {
                register(s);
                return;
            }
            if (code != Code.OK) {
                adapter.retryLater(s, () -> register(s));
                return;
            }
            long owner = stat.getEphemeralOwner();
            boolean sameProcess = adapter.decodeOrSkip(path, stat, () -> ZnodeCodec.decodeBroker(path, info.id(), data))
                    .map(b -> b.creatorId().equals(info.creatorId())).orElse(false);
            if (owner == s.id()) {
                brokerRegistered.complete(null);
            } else if (pastSessionIds.contains(owner) || sameProcess) {
                LOG.info("deleting {} left by our earlier session 0x{}", path, Long.toHexString(owner));
                s.zk.delete(path, stat.getVersion(),
                        (rc2, p2, ctx2) -> adapter.answered(s, rc2, () -> register(s)));
            } else if (waitForHolder(owner)) {
                adapter.retryLater(s, () -> register(s));
            } else {
                DuplicateBrokerIdException e = new DuplicateBrokerIdException(info.id(), owner);
                LOG.error(e.getMessage());
                brokerRegistered.completeExceptionally(e);
            }
        }));
    }

    /**
     * Another session holds our id. It may be a previous process of this broker that crashed and whose session
     * ZooKeeper has not expired yet (a restart within the session timeout), or a second live broker with the same
     * id (a configuration mistake). Only waiting tells them apart: a dead holder's node goes within a session
     * timeout (plus the server's rounding to ticks), a live one's does not. Until then, retry; after, refuse.
     */
    private boolean waitForHolder(long owner) {
        long now = adapter.now();
        if (conflictSinceMs == Long.MIN_VALUE || conflictOwner != owner) {
            conflictSinceMs = now;
            conflictOwner = owner;
            LOG.warn("broker id {} is held by session 0x{}: waiting up to {} ms for it to expire (a previous process"
                    + " of this broker?) before refusing to start", broker.id(), Long.toHexString(owner),
                    conflictWaitMs());
        }
        return now - conflictSinceMs < conflictWaitMs();
    }

    private long conflictWaitMs() {
        return adapter.config().sessionTimeoutMs() * 3L / 2;
    }

    /** {@code /brokers/ids} children (watched) and each broker's data, as one BrokersChanged. */
    void readBrokers(ZkSession s) {
        Map<Integer, BrokerInfo> brokers = new TreeMap<>();
        ReadJoin[] j = new ReadJoin[1];
        Consumer<String> retry = reason -> {
            if (reason.equals(Code.CONNECTIONLOSS.toString())) {
                adapter.retryLater(s, () -> readBrokers(s));
            }
        };
        j[0] = new ReadJoin(adapter, s, "the broker list", retry,
                () -> adapter.emit(new CoordinatorEvent.BrokersChanged(List.copyOf(brokers.values()))), true);
        j[0].children(ZkPaths.BROKER_IDS, true, ids -> {
            for (String id : ids) {
                String path = ZkPaths.BROKER_IDS + "/" + id;
                j[0].data(path, false, (data, stat) -> {
                    int brokerId = TreeReader.brokerIdOf(id);
                    if (brokerId < 0) {
                        adapter.garbage(new ZnodeFormatException(path, "not a broker id"), stat.getMzxid());
                        return;
                    }
                    adapter.decodeOrSkip(path, stat, () -> ZnodeCodec.decodeBroker(path, brokerId, data))
                            .ifPresent(b -> brokers.put(brokerId, b));
                });
            }
        });
    }
}
