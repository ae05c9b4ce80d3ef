/**
 * The consumer library applications use, in the spirit of Kafka 0.8's high-level consumer: discovery of the
 * coordinator, registration, fetchers fed by partition sources, streams the application iterates, offset commits
 * and a graceful leave. The session core that obeys the coordinator is internal.
 */
module shepherd.consumer {
    requires transitive shepherd.protocol;
    requires shepherd.transport;
    requires org.slf4j;

    // exports shepherd.consumer as soon as the package holds its first type (javac refuses an export of an empty package).
}
