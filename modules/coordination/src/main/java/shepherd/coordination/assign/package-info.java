/**
 * Partition assignors: given each topic's partitions and subscribed streams (and, for {@code sticky}, the current
 * owners), decide which stream owns each partition (the seed's rebalance step 2, DESIGN §6).
 *
 * <p>{@link shepherd.coordination.assign.Assignor} is a service: this module provides {@code range} (Kafka 0.8,
 * the default), {@code roundrobin} and {@code sticky}, and {@link shepherd.coordination.assign.Assignors} finds
 * installed ones by name. Ids are parsed once into ordered values ({@link shepherd.coordination.assign.PartitionId},
 * {@link shepherd.coordination.assign.StreamId}); inputs are normalised (sorted) once; assignors are pure.
 * Algorithms, guarantees and worked examples: docs/assignors.md.
 */
package shepherd.coordination.assign;
