/** Graceful handover (DESIGN §5): stop every group, make its offsets durable, record the handover, resign. Not exported. */
package shepherd.coordination.handover;
