package shepherd.testkit;

/** A reply, a watch event or a session event on its way to the client. */
final class SimZkToClient {
    enum Kind {
        REPLY, WATCH, SYNC_CONNECTED, EXPIRED, SESSION_CLOSED
    }

    final Kind kind;
    final SimZkRequest request;
    final SimZkResult result;
    final SimZkWatchEvent event;
    final SimZkWatches.Watch watch;
    /** For a handshake's answer, the connection attempt it answers; the client ignores an older one's. */
    final int epoch;
    Scheduler.Task task;

    private SimZkToClient(Kind kind, SimZkRequest request, SimZkResult result, SimZkWatchEvent event,
            SimZkWatches.Watch watch, int epoch) {
        this.kind = kind;
        this.request = request;
        this.result = result;
        this.event = event;
        this.watch = watch;
        this.epoch = epoch;
    }

    static SimZkToClient reply(SimZkRequest request, SimZkResult result) {
        return new SimZkToClient(Kind.REPLY, request, result, null, null, 0);
    }

    static SimZkToClient watch(SimZkWatchEvent event, SimZkWatches.Watch watch) {
        return new SimZkToClient(Kind.WATCH, null, null, event, watch, 0);
    }

    static SimZkToClient syncConnected(int epoch) {
        return new SimZkToClient(Kind.SYNC_CONNECTED, null, null, null, null, epoch);
    }

    static SimZkToClient expired(int epoch) {
        return new SimZkToClient(Kind.EXPIRED, null, null, null, null, epoch);
    }

    static SimZkToClient sessionClosed() {
        return new SimZkToClient(Kind.SESSION_CLOSED, null, null, null, null, 0);
    }
}
