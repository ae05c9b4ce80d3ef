/**
 * The file partition source (internal; offered to the consumer as a service).
 */
package shepherd.source.file;
