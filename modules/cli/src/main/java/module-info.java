/**
 * The {@code shepherd} command line: running a broker, managing topics, groups and offsets, producing to the file
 * source, and the demo. picocli reads the command classes reflectively, hence the {@code opens}.
 *
 * <p>{@code shepherd.cli.local} (an in-process cluster for the demo and the integration tests) reads and writes the
 * ZooKeeper tree as the topic and offset tools do, hence {@code shepherd.zookeeper}; it is not exported.
 */
module shepherd.cli {
    requires shepherd.broker;
    requires shepherd.zookeeper;
    requires shepherd.consumer;
    requires shepherd.source.file;
    requires shepherd.transport;
    requires info.picocli;
    requires org.slf4j;

    opens shepherd.cli to info.picocli;
    opens shepherd.cli.commands to info.picocli;
    opens shepherd.cli.demo to info.picocli;

    uses shepherd.consumer.PartitionSource;
}
