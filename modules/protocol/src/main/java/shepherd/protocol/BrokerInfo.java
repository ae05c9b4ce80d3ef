package shepherd.protocol;

/** One live broker as Consult reports it: {@code id:int32, host:string, port:int32, creator_id:string}. */
public record BrokerInfo(int id, String host, int port, String creatorId) {
    public BrokerInfo {
        Checks.notNull(host, "BrokerInfo.host");
        Checks.notNull(creatorId, "BrokerInfo.creatorId");
    }
}
