/**
 * The consumer library applications use, in the spirit of Kafka 0.8's high-level consumer: discovery of the
 * coordinator, registration, fetchers fed by partition sources, streams the application iterates, offset commits
 * and a graceful leave. The session core that obeys the coordinator
 * ({@code shepherd.consumer.session}, sans-I/O) is exported only to the test kit.
 */
module shepherd.consumer {
    requires transitive shepherd.protocol;
    requires shepherd.transport;
    requires org.slf4j;

    // The deterministic simulation (DESIGN §2, testkit) drives the real session core, not a model of it, so its
    // safety checks say something about the code that runs. Qualified: applications never see the core.
    exports shepherd.consumer.session to shepherd.testkit, shepherd.simulation;

    exports shepherd.consumer;

    // Records come from sources found by name; the built-in one is shepherd.source.file's "file".
    uses shepherd.consumer.PartitionSource;
}
