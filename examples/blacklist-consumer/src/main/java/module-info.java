/**
 * Example: an application that subscribes with a blacklist ({@code createMessageStreamsByFilter} with
 * {@code TopicFilter.blacklist}): it reads every topic whose name the regular expression does not match, now and as
 * topics are created, on several streams shared by all of those topics, one thread each. Offsets are committed
 * automatically (the default). See README.md.
 *
 * <p>It needs only the public consumer API. At run time the module path must also hold a partition source (here
 * {@code shepherd.source.file}, found as a service) and, for log output, an SLF4J binding (here slf4j-simple).
 */
module shepherd.examples.blacklist {
    requires shepherd.consumer;
}
