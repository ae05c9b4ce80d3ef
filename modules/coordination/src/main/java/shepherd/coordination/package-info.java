/**
 * The coordinator state machine, its events and effects (filled by the coordination-core work).
 */
package shepherd.coordination;
