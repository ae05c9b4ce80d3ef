package shepherd.zookeeper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorEvent;
import shepherd.coordination.ZkRead;
import shepherd.protocol.BrokerInfo;
import shepherd.zookeeper.ZnodeCodec.EpochValue;

/**
 * The coordinator core's hands on ZooKeeper: it executes the ZooKeeper effects ({@link #execute}) and turns every
 * answer, watch firing and session change into a {@link CoordinatorEvent} on the broker's queue (the sink).
 *
 * <p><b>One thread.</b> All of the adapter's state lives on one {@link ZkLoop}: in a broker a thread of its own, in
 * the simulation the deterministic scheduler. ZooKeeper delivers a session's callbacks and watch events on its own
 * single event thread in the order the server produced them; the adapter re-posts each to its loop, which keeps that
 * order, and calls the sink only from there. So the queue sees events in ZooKeeper's order, and no request is ever
 * blocking a thread that must deliver a session event. It reaches ZooKeeper only through a {@link ZkClient}: the
 * real handle in a broker, the test kit's simulated one in the simulation.
 *
 * <p><b>Sessions.</b> Each ZooKeeper handle is wrapped in a {@code ZkSession}; everything that comes back is checked
 * against the current one and dropped if it belongs to an older handle. On Expired, or on the first answer
 * {@code SESSIONEXPIRED} to any of its requests (which may come without the event), the adapter enqueues
 * {@link CoordinatorEvent.ZkExpired} first, then closes the handle and opens a new session: the new handle does not
 * exist before ZkExpired is enqueued, so nothing of the new session can overtake it. Effects arriving before a
 * session's first SyncConnected wait for it.
 *
 * <p><b>Election</b> (DESIGN §5) is one multi — create the ephemeral {@code /consumers/coordinator} and
 * {@code setData(/consumers/epoch)} conditional on the version read just before — so winning and taking the new
 * epoch (= the new data version) are one atomic step; a lost reply is resolved by the node's ephemeral owner.
 *
 * <p><b>Writes</b> are multis led by {@code check(/consumers/epoch, epoch)} (see {@link WritePlanner}), prepared one
 * write at a time, planned from what the session knows exists ({@code KnownNodes}) and probing only the rest.
 *
 * <p>The parts live in {@code Election}, {@code TreeReader}, {@code FencedWriter} and {@code BrokerRegistry}; all of
 * them run on this adapter's loop and reach ZooKeeper only through the current {@code ZkSession}. The tree and
 * its values: {@code docs/zookeeper-layout.md}.
 */
public final class ZooKeeperAdapter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperAdapter.class);
    /** Distinct garbage znode versions remembered so each is logged once; the memory is cleared past this. */
    private static final int GARBAGE_REMEMBERED_MAX = 10_000;
    /** The keep-alive: a check of the epoch node at any version, which exists for as long as the tree does. */
    private static final List<Op> KEEP_ALIVE = List.of(Op.check(ZkPaths.EPOCH, -1));

    /**
     * @param retryMs       delay before retrying an election step or a registration after a transient failure
     * @param multiBytesMax size at which a write is cut into several multis, below the 1 MiB jute.maxbuffer
     * @param epochBump     true (always, but in the chaos suite's negative control): a win bumps
     *                      {@code /consumers/epoch}; false: the winner takes its current version unbumped, as the
     *                      seed's unfenced coordinator did, so a new coordinator shares the deposed one's epoch
     */
    public record Config(String connectString, int sessionTimeoutMs, int brokerId, long retryMs, int multiBytesMax,
                         boolean epochBump) {
        public Config {
            Objects.requireNonNull(connectString, "connectString");
            if (sessionTimeoutMs <= 0 || retryMs <= 0 || multiBytesMax <= 0) {
                throw new IllegalArgumentException("timeouts and sizes must be positive: " + sessionTimeoutMs
                        + ", " + retryMs + ", " + multiBytesMax);
            }
        }

        public static Config of(String connectString, int sessionTimeoutMs, int brokerId) {
            return new Config(connectString, sessionTimeoutMs, brokerId, 200, 900 * 1024, true);
        }

        /** This configuration with elections that do not bump the epoch: the negative control's only use. */
        public Config withoutEpochBump() {
            return new Config(connectString, sessionTimeoutMs, brokerId, retryMs, multiBytesMax, false);
        }
    }

    private final Config config;
    private final ZkClient.Factory clients;
    private final Consumer<CoordinatorEvent> sink;
    private final LongSupplier clock;
    private final ZkLoop loop;
    private final AtomicLong garbage = new AtomicLong();
    private final AtomicBoolean closing = new AtomicBoolean();

    // Loop-thread state.
    private final Map<String, Long> garbageSeen = new LinkedHashMap<>();
    private volatile ZkSession session;
    private boolean closed;
    private final Election election = new Election(this);
    private final TreeReader reader = new TreeReader(this);
    private final FencedWriter writer = new FencedWriter(this);
    private final BrokerRegistry registry = new BrokerRegistry(this);

    private ZooKeeperAdapter(Config config, ZkClient.Factory clients, ZkLoop loop, Consumer<CoordinatorEvent> sink,
                             LongSupplier clock) {
        this.config = config;
        this.clients = Objects.requireNonNull(clients, "clients");
        this.loop = Objects.requireNonNull(loop, "loop");
        this.sink = Objects.requireNonNull(sink, "sink");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Opens the first session with the real ZooKeeper client of {@code config.connectString()}, on a thread of the
     * adapter's own; events go to {@code sink}, {@code clock} stamps every request's {@code sentAtMs}.
     */
    public static ZooKeeperAdapter open(Config config, Consumer<CoordinatorEvent> sink, LongSupplier clock) {
        return open(config, ZooKeeperClient.factory(config.connectString(), config.sessionTimeoutMs()),
                ZkLoop.ownThread("shepherd-zk-adapter-" + config.brokerId()), sink, clock);
    }

    /**
     * Opens the first session through {@code clients}, running on {@code loop}; events go to {@code sink},
     * {@code clock} stamps every request's {@code sentAtMs} and times the retries. The connect string of
     * {@code config} is {@code clients}' business, not the adapter's.
     */
    public static ZooKeeperAdapter open(Config config, ZkClient.Factory clients, ZkLoop loop,
                                        Consumer<CoordinatorEvent> sink, LongSupplier clock) {
        ZooKeeperAdapter adapter = new ZooKeeperAdapter(config, clients, loop, sink, clock);
        adapter.onLoop(adapter::newSession);
        return adapter;
    }

    /** Executes a ZooKeeper effect (RunForElection, Resign, Read, KeepAlive, Write). */
    public void execute(CoordinatorEffect.ZooKeeper effect) {
        Objects.requireNonNull(effect, "effect");
        onLoop(() -> whenConnected(s -> dispatchInOrder(s, effect)));
    }

    /**
     * Registers this broker under {@code /brokers/ids/[id]} now and again after every new session. The future
     * completes when the first registration holds, or fails with {@link DuplicateBrokerIdException}.
     */
    public CompletableFuture<Void> registerBroker(BrokerInfo info) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        onLoop(() -> registry.register(session, info, done));
        return done;
    }

    /**
     * A standby's rehearsal of the ZooKeeper side of a takeover that changes nothing ({@link TakeoverRehearsal}):
     * the topics and the first {@code groupsMax} groups (in name order) read as loading reads them, answers discarded
     * and no watch armed, once batched and once node by node; then a fenced write shaped like a takeover's first
     * owners write, always refused at its epoch check, so nothing of it is applied. Its first takeover is then not
     * the first run of these paths in the JVM, ZooKeeper's client included. Nothing reaches the sink; garbage found
     * is logged and counted as by any read. Completes once the write was answered; never, if the session ends first.
     */
    public CompletableFuture<Rehearsal> rehearseTakeover(int groupsMax) {
        CompletableFuture<Rehearsal> done = new CompletableFuture<>();
        onLoop(() -> whenConnected(s -> new TakeoverRehearsal(this, s, groupsMax, done).start()));
        return done;
    }

    /**
     * What {@link #rehearseTakeover} did: how many groups it read (each twice), and whether its write was refused at
     * the epoch check as it always should be (false: it failed otherwise, a connection loss say; nothing applied).
     */
    public record Rehearsal(int groupsRead, boolean writeRefused) {}

    /** How many garbage znode values were found (each version of a node counted once) and skipped. */
    public long garbageCount() {
        return garbage.get();
    }

    /** How many {@code exists} probes writes have needed so far (any thread). */
    long probesSent() {
        return writer.probesSent();
    }

    /** The current session's id (0 before it is established). */
    public long sessionId() {
        ZkSession s = session;
        return s == null ? 0 : s.id();
    }

    /** For tests that end the session on the server side with a second handle. */
    byte[] sessionPassword() {
        if (!(session.zk instanceof ZooKeeperClient real)) {
            throw new IllegalStateException("no session password: the session is not a real ZooKeeper client's");
        }
        return real.sessionPassword();
    }

    /** Closes the session (its ephemeral nodes go at once) and stops the adapter's loop; idempotent. */
    @Override
    public void close() {
        if (closing.getAndSet(true)) {
            return;
        }
        loop.close(guarded(() -> {
            closed = true;
            closeQuietly(session);
        }), config.sessionTimeoutMs() + 5_000L);
    }

    // ------------------------------------------------------------------ the loop and sessions

    private void onLoop(Runnable task) {
        loop.execute(guarded(task));
    }

    /** A task that fails is a bug: logged, and the adapter goes on with the next one. */
    private static Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.error("ZooKeeper adapter task failed", e);
            }
        };
    }

    /** Runs {@code r} on the loop if {@code s} is still the current session. */
    void post(ZkSession s, Runnable r) {
        onLoop(() -> {
            if (s == session && !closed) {
                r.run();
            }
        });
    }

    /**
     * Runs {@code r} on the loop with the answer to a request of {@code s}, if {@code s} is still the current session.
     * An answer {@code SESSIONEXPIRED} ends the session instead, as its {@code Expired} event does ({@link #expired}):
     * the server said the session is gone, and the {@code Expired} event may never come. A member of an ensemble can
     * keep the connection of a session closed through another member while that connection was being set up: it
     * goes on answering reads and forwarding pings, and every write comes back {@code SESSIONEXPIRED}, with no
     * state change ever reported to the client.
     */
    void answered(ZkSession s, int rc, Runnable r) {
        onLoop(() -> {
            if (s != session || closed) {
                return;
            }
            if (Code.get(rc) == Code.SESSIONEXPIRED) {
                expired(s, "a request was answered SESSIONEXPIRED");
            } else {
                r.run();
            }
        });
    }

    Config config() {
        return config;
    }

    /** What this session knows exists below {@code /consumers/groups}: reads record into it, writes plan from it. */
    KnownNodes knownNodes() {
        return writer.known();
    }

    long now() {
        return clock.getAsLong();
    }

    /** Runs {@code r} on the loop after {@code retryMs}, if {@code s} is still the current session then. */
    void retryLater(ZkSession s, Runnable r) {
        loop.schedule(() -> post(s, r), config.retryMs());
    }

    void emit(CoordinatorEvent event) {
        sink.accept(event);
    }

    private void newSession() {
        ZkSession s = new ZkSession(this);
        try {
            s.zk = clients.open(s);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a ZooKeeper session with " + config.connectString(), e);
        }
        session = s;
        election.reset();
        writer.reset();
    }

    private void whenConnected(Consumer<ZkSession> action) {
        ZkSession s = session;
        if (closed) {
            return;
        }
        if (s.established) {
            action.accept(s);
        } else {
            s.waiting.add(action);
        }
    }

    void onZkEvent(ZkSession s, WatchedEvent event) {
        if (event.getType() != EventType.None) {
            onWatch(s, event);
            return;
        }
        switch (event.getState()) {
            // The first SyncConnected of a session opens it; a later one ends a disconnection.
            case SyncConnected -> {
                if (!s.established) {
                    established(s);
                } else if (s.disconnected) {
                    s.disconnected = false;
                    // The reconnect request left after we saw the disconnection: a safe lower bound of its send time.
                    emit(new CoordinatorEvent.ZkSyncConnected(s.disconnectedAtMs));
                }
            }
            // The session may live on; the core stops commanding at once.
            case Disconnected -> {
                if (s.established && !s.disconnected) {
                    s.disconnected = true;
                    s.disconnectedAtMs = clock.getAsLong();
                    emit(new CoordinatorEvent.ZkDisconnected());
                }
            }
            // Ordering obligation: ZkExpired is enqueued before the new handle even exists.
            case Expired -> expired(s, "the server reported it expired");
            default -> LOG.info("ZooKeeper session state {}", event.getState());
        }
    }

    /**
     * The current session {@code s} is gone: ZkExpired is enqueued before the new handle even exists (the ordering
     * obligation), then the old handle is closed and a new session opened. Once per session: whatever else of
     * {@code s} arrives after is dropped, for {@code s} is no longer current.
     */
    private void expired(ZkSession s, String how) {
        LOG.warn("ZooKeeper session 0x{} ended ({}); opening a new one", Long.toHexString(s.id()), how);
        emit(new CoordinatorEvent.ZkExpired());
        registry.sessionEnded(s.id());
        closeQuietly(s);
        newSession();
    }

    /** A new session: create the fixed nodes, re-register the broker, watch the broker list, run waiting effects. */
    private void established(ZkSession s) {
        s.established = true;
        LOG.info("ZooKeeper session 0x{} established", Long.toHexString(s.id()));
        byte[] empty = new byte[0];
        for (String path : List.of(ZkPaths.BROKERS, ZkPaths.BROKER_IDS, ZkPaths.TOPICS, ZkPaths.CONSUMERS,
                ZkPaths.GROUPS)) {
            createIfMissing(s, path, empty);
        }
        createIfMissing(s, ZkPaths.EPOCH, ZnodeCodec.encodeEpoch(new EpochValue(-1, false)));
        registry.sessionEstablished(s);
        registry.readBrokers(s);
        List<Consumer<ZkSession>> waiting = new ArrayList<>(s.waiting);
        s.waiting.clear();
        waiting.forEach(action -> action.accept(s));
    }

    /** Requests of one session are applied in order, so later requests already see these nodes. */
    private void createIfMissing(ZkSession s, String path, byte[] data) {
        s.zk.create(path, data, CreateMode.PERSISTENT, (rc, p, ctx, name) -> {
            Code code = Code.get(rc);
            answered(s, rc, () -> {
                if (code != Code.OK && code != Code.NODEEXISTS) {
                    LOG.warn("could not create {}: {}", path, code);
                }
            });
        });
    }

    private void closeQuietly(ZkSession s) {
        try {
            s.zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void dispatchInOrder(ZkSession s, CoordinatorEffect effect) {
        if (writer.busy()) {
            writer.defer(() -> dispatch(s, effect));
        } else {
            dispatch(s, effect);
        }
    }

    private void dispatch(ZkSession s, CoordinatorEffect effect) {
        if (effect instanceof CoordinatorEffect.RunForElection) {
            election.run(s);
        } else if (effect instanceof CoordinatorEffect.Resign r) {
            election.resign(s, r.rejoin());
        } else if (effect instanceof CoordinatorEffect.Read r) {
            reader.read(s, r.read());
        } else if (effect instanceof CoordinatorEffect.KeepAlive) {
            // A multi of one version check, not a read: a write passes the leader's session check, a read is
            // answered by whichever member holds the connection, even on a session the ensemble has ended
            // (obligation 2 of docs/zookeeper-layout.md). Answered SESSIONEXPIRED, it ends the session.
            long sentAtMs = clock.getAsLong();
            s.zk.multi(KEEP_ALIVE, (rc, path, ctx, results) -> answered(s, rc, () -> {
                if (Code.get(rc) == Code.OK) {
                    emit(new CoordinatorEvent.ZkSynced(sentAtMs));
                }
            }));
        } else if (effect instanceof CoordinatorEffect.Write w) {
            if (w.fenced() && !election.holds(w.epoch())) {
                // Listed while epoch w.epoch() was this broker's, on a session that has since ended: ZkExpired is
                // ahead of it on the core's queue. Sent on this session it would pass the epoch check as long as
                // no other broker has won, and land from a session that never held the epoch. Refused here as
                // ZooKeeper's check refuses it once another has won.
                LOG.info("write {} of epoch {} refused: this ZooKeeper session did not win that epoch",
                        w.writeId(), w.epoch());
                emit(new CoordinatorEvent.ZkWriteFenced(w.writeId(), clock.getAsLong()));
                return;
            }
            writer.write(s, w);
        }
    }

    // ------------------------------------------------------------------ watches

    private void onWatch(ZkSession s, WatchedEvent event) {
        String path = event.getPath();
        if (path == null) {
            return;
        }
        String topic = ZkPaths.topicOf(path);
        String group = ZkPaths.groupOfIds(path);
        if (path.equals(ZkPaths.COORDINATOR)) {
            election.leaderNodeChanged(s);
        } else if (path.equals(ZkPaths.BROKER_IDS)) {
            registry.readBrokers(s);
        } else if (path.equals(ZkPaths.TOPICS)) {
            emit(new CoordinatorEvent.TopicChange());
        } else if (topic != null) {
            emit(new CoordinatorEvent.TopicPartitionChange(topic));
        } else if (path.equals(ZkPaths.GROUPS)) {
            emit(new CoordinatorEvent.GroupChange());
        } else if (group != null) {
            emit(new CoordinatorEvent.GroupMemberChange(group));
        }
    }

    // ------------------------------------------------------------------ garbage

    interface Decoder<T> {
        T decode() throws ZnodeFormatException;
    }

    /** Decodes, or logs (once per node version), counts and skips garbage. */
    <T> Optional<T> decodeOrSkip(String path, Stat stat, Decoder<T> decoder) {
        try {
            return Optional.of(decoder.decode());
        } catch (ZnodeFormatException e) {
            garbage(e, stat == null ? -1 : stat.getMzxid());
            return Optional.empty();
        }
    }

    /** Logs and counts garbage once per node version ({@code mzxid}): re-reading a bad node must not flood the log. */
    void garbage(ZnodeFormatException e, long mzxid) {
        Long before = garbageSeen.put(e.path(), mzxid);
        if (before != null && before == mzxid) {
            return;
        }
        if (garbageSeen.size() > GARBAGE_REMEMBERED_MAX) {
            garbageSeen.clear();
        }
        garbage.incrementAndGet();
        LOG.warn("{} (skipped)", e.getMessage());
    }
}
