package shepherd.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.CheckVersionRequest;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.SetDataRequest;
import shepherd.zookeeper.ZkClient;

/**
 * The ZooKeeper adapter's {@link ZkClient} over one {@link SimZooKeeper} session, so that the simulation runs the
 * real adapter — election, fenced writes and their repair, batched reads, watches — against a ZooKeeper whose every
 * loss, delay and expiry a seed decides. Each call becomes the simulated client's request; each answer comes back in
 * ZooKeeper's own shape, as the real client would give it:
 * <ul>
 *   <li>result codes are {@code KeeperException.Code} values; a missing node's {@code Stat} is null;</li>
 *   <li>a write multi that failed answers every op: {@code OK} before the op that failed, its code, then
 *       {@code RUNTIMEINCONSISTENCY}; one whose outcome is unknown (connection or session lost) has no results;</li>
 *   <li>a multi's {@code rc} is that of its first failed op, also for a multi of reads;</li>
 *   <li>session events and watch firings reach the watcher as {@code WatchedEvent}s, in the order the simulated
 *       client delivers them.</li>
 * </ul>
 * Node data is the adapter's bytes; a node holding anything else is a broken test and fails loudly.
 */
public final class SimZkClient implements ZkClient {
    private final SimZooKeeper.Client client;

    private SimZkClient(SimZooKeeper.Client client) {
        this.client = client;
    }

    /**
     * Sessions of {@code zk} named {@code name}; {@code opened} hears each new session's simulated client (the
     * simulation pauses, cuts and expires it).
     */
    public static ZkClient.Factory factory(SimZooKeeper zk, String name, long sessionTimeoutMs,
            Consumer<SimZooKeeper.Client> opened) {
        Objects.requireNonNull(zk, "zk");
        Objects.requireNonNull(opened, "opened");
        return watcher -> {
            SimZooKeeper.Client client = zk.connect(name, sessionTimeoutMs, listener(watcher));
            opened.accept(client);
            return new SimZkClient(client);
        };
    }

    private static SimZkListener listener(Watcher watcher) {
        return new SimZkListener() {
            @Override
            public void onSession(SimZkSessionEvent event) {
                KeeperState state = switch (event) {
                    case DISCONNECTED -> KeeperState.Disconnected;
                    case SYNC_CONNECTED -> KeeperState.SyncConnected;
                    case EXPIRED -> KeeperState.Expired;
                };
                watcher.process(new WatchedEvent(EventType.None, state, null));
            }

            @Override
            public void onWatch(SimZkWatchEvent event) {
                EventType type = switch (event.type()) {
                    case NODE_CREATED -> EventType.NodeCreated;
                    case NODE_DELETED -> EventType.NodeDeleted;
                    case NODE_DATA_CHANGED -> EventType.NodeDataChanged;
                    case NODE_CHILDREN_CHANGED -> EventType.NodeChildrenChanged;
                };
                watcher.process(new WatchedEvent(type, KeeperState.SyncConnected, event.path()));
            }
        };
    }

    @Override
    public long sessionId() {
        return client.sessionId();
    }

    @Override
    public void create(String path, byte[] data, CreateMode mode, AsyncCallback.StringCallback cb) {
        requireSupported(mode);
        client.create(path, data, mode.isEphemeral(),
                r -> cb.processResult(rc(r.code()), path, null, r.ok() ? path : null));
    }

    @Override
    public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
        client.delete(path, version, r -> cb.processResult(rc(r.code()), path, null));
    }

    @Override
    public void exists(String path, boolean watch, AsyncCallback.StatCallback cb) {
        client.exists(path, watch, r -> cb.processResult(rc(r.code()), path, null, r.ok() ? stat(r) : null));
    }

    @Override
    public void getData(String path, boolean watch, AsyncCallback.DataCallback cb) {
        client.getData(path, watch,
                r -> cb.processResult(rc(r.code()), path, null, r.ok() ? bytes(path, r.data()) : null,
                        r.ok() ? stat(r) : null));
    }

    @Override
    public void getChildren(String path, boolean watch, AsyncCallback.ChildrenCallback cb) {
        client.getChildren(path, watch, r -> cb.processResult(rc(r.code()), path, null, r.ok() ? r.children() : null));
    }

    @Override
    public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
        if (!ops.isEmpty() && ops.stream().allMatch(op -> op.getKind() == Op.OpKind.READ)) {
            multiRead(ops, cb);
            return;
        }
        List<SimZkOp> writes = new ArrayList<>(ops.size());
        for (Op op : ops) {
            writes.add(write(op));
        }
        client.multi(writes, r -> {
            if (r.code() == SimZkCode.CONNECTION_LOSS || r.code() == SimZkCode.SESSION_EXPIRED) {
                cb.processResult(rc(r.code()), null, null, null);
            } else {
                List<OpResult> results = r.ok() ? committed(ops) : failed(ops.size(), r);
                cb.processResult(firstError(results), null, null, results);
            }
        });
    }

    @Override
    public void close() {
        client.close();
    }

    // ------------------------------------------------------------------ translation

    private void multiRead(List<Op> ops, AsyncCallback.MultiCallback cb) {
        List<SimZkRead> reads = new ArrayList<>(ops.size());
        for (Op op : ops) {
            reads.add(op.getType() == OpCode.getData ? SimZkRead.data(op.getPath())
                    : SimZkRead.children(op.getPath()));
        }
        client.multiRead(reads, r -> {
            if (!r.ok()) {
                cb.processResult(rc(r.code()), null, null, null);
                return;
            }
            List<OpResult> results = new ArrayList<>(ops.size());
            for (int i = 0; i < ops.size(); i++) {
                SimZkResult one = r.results().get(i);
                if (!one.ok()) {
                    results.add(new OpResult.ErrorResult(rc(one.code())));
                } else if (reads.get(i).kind() == SimZkRead.Kind.DATA) {
                    results.add(new OpResult.GetDataResult(bytes(ops.get(i).getPath(), one.data()), stat(one)));
                } else {
                    results.add(new OpResult.GetChildrenResult(one.children()));
                }
            }
            cb.processResult(firstError(results), null, null, results);
        });
    }

    private static SimZkOp write(Op op) {
        switch (op.getType()) {
            case OpCode.check:
                return new SimZkOp.Check(op.getPath(), ((CheckVersionRequest) op.toRequestRecord()).getVersion());
            case OpCode.create: {
                CreateRequest create = (CreateRequest) op.toRequestRecord();
                CreateMode mode = createMode(create.getFlags());
                requireSupported(mode);
                return new SimZkOp.Create(op.getPath(), create.getData(), mode.isEphemeral());
            }
            case OpCode.setData: {
                SetDataRequest set = (SetDataRequest) op.toRequestRecord();
                return new SimZkOp.SetData(op.getPath(), set.getData(), set.getVersion());
            }
            case OpCode.delete:
                return new SimZkOp.Delete(op.getPath(), ((DeleteRequest) op.toRequestRecord()).getVersion());
            default:
                throw new IllegalArgumentException("a multi may not mix reads and writes, nor hold op type "
                        + op.getType() + " (" + op.getPath() + ")");
        }
    }

    /** What a committed multi answers per op (the stat of a setData is not modelled: nothing reads it). */
    private static List<OpResult> committed(List<Op> ops) {
        List<OpResult> results = new ArrayList<>(ops.size());
        for (Op op : ops) {
            results.add(switch (op.getType()) {
                case OpCode.create -> new OpResult.CreateResult(op.getPath());
                case OpCode.setData -> new OpResult.SetDataResult(null);
                case OpCode.delete -> new OpResult.DeleteResult();
                default -> new OpResult.CheckResult();
            });
        }
        return results;
    }

    /** As ZooKeeper answers a multi refused at op {@code r.failedOpIndex()}: nothing of it applied. */
    private static List<OpResult> failed(int size, SimZkResult r) {
        List<OpResult> results = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            int code = i < r.failedOpIndex() ? Code.OK.intValue()
                    : i == r.failedOpIndex() ? rc(r.code()) : Code.RUNTIMEINCONSISTENCY.intValue();
            results.add(new OpResult.ErrorResult(code));
        }
        return results;
    }

    /** The client's {@code rc} for an answered multi: the first failed op's code, else OK. */
    private static int firstError(List<OpResult> results) {
        for (OpResult result : results) {
            if (result instanceof OpResult.ErrorResult e && e.getErr() != Code.OK.intValue()) {
                return e.getErr();
            }
        }
        return Code.OK.intValue();
    }

    static int rc(SimZkCode code) {
        return (switch (code) {
            case OK -> Code.OK;
            case NO_NODE -> Code.NONODE;
            case NODE_EXISTS -> Code.NODEEXISTS;
            case BAD_VERSION -> Code.BADVERSION;
            case NOT_EMPTY -> Code.NOTEMPTY;
            case NO_CHILDREN_FOR_EPHEMERALS -> Code.NOCHILDRENFOREPHEMERALS;
            case CONNECTION_LOSS -> Code.CONNECTIONLOSS;
            case SESSION_EXPIRED -> Code.SESSIONEXPIRED;
        }).intValue();
    }

    private static Stat stat(SimZkResult r) {
        SimZkStat s = r.stat();
        int dataLength = r.data() instanceof byte[] b ? b.length : 0;
        return new Stat(s.czxid(), s.mzxid(), 0, 0, s.version(), s.cversion(), 0, s.ephemeralOwner(), dataLength,
                r.children().size(), 0);
    }

    private static byte[] bytes(String path, Object data) {
        if (data == null || data instanceof byte[]) {
            return (byte[]) data;
        }
        throw new IllegalStateException(path + " holds " + data.getClass().getSimpleName()
                + ", not the bytes the adapter writes: whatever wrote it bypassed ZnodeCodec");
    }

    private static CreateMode createMode(int flags) {
        try {
            return CreateMode.fromFlag(flags);
        } catch (org.apache.zookeeper.KeeperException e) {
            throw new IllegalArgumentException("unknown create flags " + flags, e);
        }
    }

    /** The simulated ZooKeeper has persistent and ephemeral nodes only, which is all the adapter creates. */
    private static void requireSupported(CreateMode mode) {
        if (mode != CreateMode.PERSISTENT && mode != CreateMode.EPHEMERAL) {
            throw new IllegalArgumentException("the simulated ZooKeeper has no " + mode + " nodes");
        }
    }
}
