package shepherd.broker;

import shepherd.coordination.CoordinatorEffect;

/**
 * What the event loop hands the ZooKeeper adapter: the effects that talk to ZooKeeper (RunForElection, Resign, Read,
 * KeepAlive, Write). The adapter answers by enqueueing events on the loop, never by calling the core.
 */
public interface ZooKeeperPort {
    void execute(CoordinatorEffect.ZooKeeper effect);
}
