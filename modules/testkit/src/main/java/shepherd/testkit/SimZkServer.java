package shepherd.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * The server's end of every client connection: it accepts handshakes, applies each request to the tree when it
 * arrives, in arrival order, and answers on the connection the request came on. A client process reaches the rest
 * of the server (its session's hearing, its end, its watches) only through here.
 */
final class SimZkServer {
    private final Scheduler scheduler;
    private final SimZkDataTree tree;
    private final SimZkWatches watches;
    private final SimZkSessions sessions;

    SimZkServer(Scheduler scheduler, SimZkDataTree tree, SimZkWatches watches, SimZkSessions sessions) {
        this.scheduler = scheduler;
        this.tree = tree;
        this.watches = watches;
        this.sessions = sessions;
    }

    /** Creates the session of a new client at once and answers its first connection attempt. */
    void accept(SimZkClientProcess client) {
        SimZkServerSession session = sessions.open(client);
        client.attach(session);
        session.connOpen = true;
        session.connEpoch = client.epoch();
        session.lastHeardMs = scheduler.nowMs();
        client.sendDown(SimZkToClient.syncConnected(client.epoch()));
    }

    /** {@code replyLost}: the request reached the server as its link went down; it is applied, sets no watch. */
    void receive(SimZkClientProcess client, SimZkToServer item, boolean replyLost) {
        SimZkServerSession session = client.session();
        if (item.request == null) {
            handshake(client, session, item.epoch);
            return;
        }
        if (!session.alive || !session.connOpen || item.epoch != session.connEpoch) {
            return;
        }
        session.lastHeardMs = Math.max(session.lastHeardMs, scheduler.nowMs());
        SimZkResult result = apply(session, item.request, !replyLost);
        if (!replyLost) {
            client.sendDown(SimZkToClient.reply(item.request, result));
        }
    }

    /** Attaches the connection and releases the watch events held for it; an expired session is told so. */
    private void handshake(SimZkClientProcess client, SimZkServerSession session, int epoch) {
        if (!session.alive) {
            client.sendDown(SimZkToClient.expired(epoch));
            return;
        }
        sessions.beforeHearingChange(session);
        session.connOpen = true;
        session.connEpoch = epoch;
        session.lastHeardMs = scheduler.nowMs();
        sessions.afterHearingChange(session);
        client.sendDown(SimZkToClient.syncConnected(epoch));
        List<SimZkToClient> held = new ArrayList<>(session.held);
        session.held.clear();
        held.forEach(client::sendDown);
    }

    void beforeHearingChange(SimZkServerSession session) {
        sessions.beforeHearingChange(session);
    }

    void afterHearingChange(SimZkServerSession session) {
        sessions.afterHearingChange(session);
    }

    void endSession(SimZkServerSession session, boolean closedByClient) {
        sessions.end(session, closedByClient);
    }

    void forgetUnacknowledgedWatches(SimZkServerSession session) {
        watches.forgetUnacknowledged(session);
    }

    // ---------------------------------------------------------------- requests

    private SimZkResult apply(SimZkServerSession session, SimZkRequest request, boolean setWatches) {
        long sentAt = request.sentAtMs;
        switch (request.op) {
            case SYNC:
                return SimZkResult.of(SimZkCode.OK, sentAt);
            case GET_DATA: {
                SimZkDataNode node = tree.get(request.path);
                if (node == null) {
                    return SimZkResult.of(SimZkCode.NO_NODE, sentAt);
                }
                if (request.watch && setWatches) {
                    watches.addDataWatch(request.path, session, request);
                }
                return new SimZkResult(SimZkCode.OK, node.stat(), node.data, List.of(), -1, sentAt);
            }
            case GET_CHILDREN: {
                SimZkDataNode node = tree.get(request.path);
                if (node == null) {
                    return SimZkResult.of(SimZkCode.NO_NODE, sentAt);
                }
                if (request.watch && setWatches) {
                    watches.addChildWatch(request.path, session, request);
                }
                return new SimZkResult(SimZkCode.OK, node.stat(), null, List.copyOf(node.children), -1, sentAt);
            }
            case EXISTS: {
                SimZkDataNode node = tree.get(request.path);
                if (request.watch && setWatches) {
                    watches.addDataWatch(request.path, session, request);
                }
                return node == null ? SimZkResult.of(SimZkCode.NO_NODE, sentAt)
                        : new SimZkResult(SimZkCode.OK, node.stat(), null, List.of(), -1, sentAt);
            }
            case CREATE: {
                SimZkTxn txn = tree.begin(session.id);
                SimZkCode code = txn.create(request.path, request.data, request.ephemeral ? session.id : 0);
                return finishSingle(txn, code, request.path, sentAt);
            }
            case SET_DATA: {
                SimZkTxn txn = tree.begin(session.id);
                SimZkCode code = txn.setData(request.path, request.data, request.version);
                return finishSingle(txn, code, request.path, sentAt);
            }
            case DELETE: {
                SimZkTxn txn = tree.begin(session.id);
                SimZkCode code = txn.delete(request.path, request.version);
                return finishSingle(txn, code, null, sentAt);
            }
            case MULTI_READ:
                return new SimZkResult(SimZkCode.OK, null, null, List.of(), -1, sentAt, readAll(request.reads, sentAt));
            case MULTI:
                return multi(session, request.ops, sentAt);
            default:
                throw new AssertionError(request.op);
        }
    }

    private SimZkResult multi(SimZkServerSession session, List<SimZkOp> ops, long sentAt) {
        SimZkTxn txn = tree.begin(session.id);
        for (int i = 0; i < ops.size(); i++) {
            SimZkCode code = txn.apply(ops.get(i), session.id);
            if (code != SimZkCode.OK) {
                txn.rollback();
                return new SimZkResult(code, null, null, List.of(), i, sentAt);
            }
        }
        txn.commit(false);
        return SimZkResult.of(SimZkCode.OK, sentAt);
    }

    private List<SimZkResult> readAll(List<SimZkRead> reads, long sentAt) {
        List<SimZkResult> results = new ArrayList<>(reads.size());
        for (SimZkRead read : reads) {
            SimZkDataNode node = tree.get(read.path());
            if (node == null) {
                results.add(SimZkResult.of(SimZkCode.NO_NODE, sentAt));
            } else if (read.kind() == SimZkRead.Kind.DATA) {
                results.add(new SimZkResult(SimZkCode.OK, node.stat(), node.data, List.of(), -1, sentAt));
            } else {
                results.add(new SimZkResult(SimZkCode.OK, node.stat(), null, List.copyOf(node.children), -1, sentAt));
            }
        }
        return results;
    }

    private SimZkResult finishSingle(SimZkTxn txn, SimZkCode code, String statPath, long sentAt) {
        if (code != SimZkCode.OK) {
            txn.rollback();
            return SimZkResult.of(code, sentAt);
        }
        txn.commit(false);
        SimZkStat stat = statPath == null ? null : tree.get(statPath).stat();
        return new SimZkResult(SimZkCode.OK, stat, null, List.of(), -1, sentAt);
    }
}
