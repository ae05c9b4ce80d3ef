/**
 * The {@code shepherd} command line: running a broker, managing topics, groups and offsets, producing to the file
 * source, and the demo. picocli reads the command classes reflectively, hence the {@code opens}.
 */
module shepherd.cli {
    requires shepherd.broker;
    requires shepherd.consumer;
    requires shepherd.source.file;
    requires info.picocli;

    opens shepherd.cli to info.picocli;
}
