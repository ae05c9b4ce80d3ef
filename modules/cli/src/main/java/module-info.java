/**
 * The {@code shepherd} command line: running a broker, managing topics, groups and offsets, producing to the file
 * source, and the demo. picocli reads the command classes reflectively, hence the {@code opens}.
 *
 * <p>{@code shepherd.cli.local} (an in-process cluster for the demo and the integration tests) reads and writes the
 * ZooKeeper tree as the topic and offset tools do, hence {@code shepherd.zookeeper}; it is not exported.
 *
 * <p>{@code shepherd.cli.commands} holds the {@code broker}, {@code topics}, {@code offsets} and {@code produce}
 * commands, {@code shepherd.cli.admin} their ZooKeeper handle (shared with {@code shepherd.cli.local}); neither is
 * exported. {@code offsets reset --to-latest} reads log ends through the {@code file} {@link
 * shepherd.consumer.PartitionSource}, found with {@code ServiceLoader}, hence the {@code uses}. {@code broker} catches
 * SIGINT and SIGTERM with {@code sun.misc.Signal}, hence {@code jdk.unsupported}.
 */
module shepherd.cli {
    requires shepherd.broker;
    requires shepherd.zookeeper;
    requires shepherd.consumer;
    requires shepherd.source.file;
    requires shepherd.transport;
    requires info.picocli;
    requires org.slf4j;
    requires jdk.unsupported;

    opens shepherd.cli to info.picocli;
    opens shepherd.cli.commands to info.picocli;
    opens shepherd.cli.demo to info.picocli;

    uses shepherd.consumer.PartitionSource;
}
