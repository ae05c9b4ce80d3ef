package shepherd.testkit;

/** A request or, with a null request, a connection handshake, on its way to the server. */
final class SimZkToServer {
    final SimZkRequest request;
    /** The client's connection attempt it was sent on; the server drops what an earlier attempt sent. */
    final int epoch;
    Scheduler.Task task;

    SimZkToServer(SimZkRequest request, int epoch) {
        this.request = request;
        this.epoch = epoch;
    }
}
