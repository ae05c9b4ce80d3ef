/**
 * Example: an application that reads one topic through a static subscription ({@code createMessageStreams}) with
 * auto-commit off, processes each record, and commits its offsets itself ({@code commitOffsets}) every N records
 * and when it stops. A restarted application resumes from the last commit; what it processed after that commit is
 * delivered again (at least once). See README.md.
 *
 * <p>It needs only the public consumer API. At run time the module path must also hold a partition source (here
 * {@code shepherd.source.file}, found as a service) and, for log output, an SLF4J binding (here slf4j-simple).
 */
module shepherd.examples.manualcommit {
    requires shepherd.consumer;
}
