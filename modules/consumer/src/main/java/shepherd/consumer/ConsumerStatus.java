package shepherd.consumer;

import java.util.List;
import java.util.Map;

/**
 * A snapshot of a consumer, for logs, dashboards and tests.
 *
 * @param state            the session status: {@code DISCOVERING}, {@code REGISTERING}, {@code REGISTERED},
 *                         {@code FETCHING} or {@code STOPPED} (DESIGN §6), or {@code TERMINATED}
 * @param coordinatorId    the broker we are registered with or registering with, −1 if none
 * @param coordinatorEpoch the highest coordinator epoch seen, −1 before any
 * @param generation       the generation fetched (FETCHING) or last stopped (STOPPED), −1 before any
 * @param assigned         {@code topic/partition} fetched in this generation
 * @param consumedOffsets  per {@code topic/partition}, the next offset the application will take
 * @param registrations    successful registrations so far (a re-registration after a failover counts)
 * @param termination      why the session ended, or null while it runs
 */
public record ConsumerStatus(
        String groupId,
        String consumerId,
        String state,
        int coordinatorId,
        int coordinatorEpoch,
        int generation,
        List<String> assigned,
        Map<String, Long> consumedOffsets,
        int registrations,
        String termination) {
    public ConsumerStatus {
        assigned = List.copyOf(assigned);
        consumedOffsets = Map.copyOf(consumedOffsets);
    }
}
