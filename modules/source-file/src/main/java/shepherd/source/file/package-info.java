/**
 * The file partition source (internal; offered to the consumer as a service): {@code FileSource} checks the
 * settings, {@code FileLogs} maps topic and partition ids to files and answers the ends of a log, {@code LineReader}
 * follows one file line by line.
 */
package shepherd.source.file;
