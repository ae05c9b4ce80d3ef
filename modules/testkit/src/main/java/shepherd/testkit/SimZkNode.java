package shepherd.testkit;

/** A snapshot of one znode, for checkers that must not be able to change what they observe. */
public record SimZkNode(String path, Object data, SimZkStat stat) {
}
