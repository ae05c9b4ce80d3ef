/**
 * The built-in {@code file} partition source: {@code <root>/<topic>/<partition>.log}, one record a line, offset =
 * line number.
 */
module shepherd.source.file {
    requires shepherd.consumer;
}
