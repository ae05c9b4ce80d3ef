package shepherd.zookeeper;

/**
 * Another live ZooKeeper session holds {@code /brokers/ids/[id]}: two brokers were started with the same id. Kept
 * typed and fatal, because two brokers answering Consult as the same id would send consumers to the wrong one.
 */
public final class DuplicateBrokerIdException extends RuntimeException {
    private final int brokerId;
    private final long ownerSessionId;

    public DuplicateBrokerIdException(int brokerId, long ownerSessionId) {
        super("broker id " + brokerId + " is already registered by the live ZooKeeper session 0x"
                + Long.toHexString(ownerSessionId) + "; give every broker a unique id");
        this.brokerId = brokerId;
        this.ownerSessionId = ownerSessionId;
    }

    public int brokerId() {
        return brokerId;
    }

    public long ownerSessionId() {
        return ownerSessionId;
    }
}
