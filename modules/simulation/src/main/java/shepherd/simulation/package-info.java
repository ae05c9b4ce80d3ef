/**
 * Seeded simulation runs and their fault schedules.
 */
package shepherd.simulation;
