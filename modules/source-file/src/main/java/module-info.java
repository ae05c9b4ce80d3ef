/**
 * The built-in {@code file} partition source: {@code <root>/<topic>/<partition>.log}, one record a line, offset =
 * line number (docs/source-file.md).
 *
 * <p>Exports nothing: the consumer reaches it only as the {@code PartitionSource} service named {@code "file"}, so
 * its readers and path handling can change without touching any application. Class-path users find the same
 * provider through {@code META-INF/services}.
 */
module shepherd.source.file {
    requires shepherd.consumer;

    provides shepherd.consumer.PartitionSource with shepherd.source.file.FileSource;
}
