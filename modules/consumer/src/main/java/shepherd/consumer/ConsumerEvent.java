package shepherd.consumer;

import java.util.Objects;
import shepherd.protocol.ErrorCode;

/**
 * What a consumer did, for histories and dashboards: delivered to a {@link ConsumerConfig.Builder#listener}
 * in order, on a thread of its own (never the network loop, so a slow listener cannot cost the lease).
 * {@code nanoTime} is {@link System#nanoTime()} when it happened, which on one machine is one monotonic clock for
 * every process: a checker can order the events of many consumers by it.
 *
 * <ul>
 *   <li>{@link Kind#FETCH_STARTED}: a Start made us fetch {@code topic/partition} in {@code generation} of
 *       coordinator {@code epoch}, from {@code offset} (−1: the reset policy decides);</li>
 *   <li>{@link Kind#FETCH_STOPPED}: that partition's fetcher is closed and its queued records dropped: nothing of
 *       it is delivered after this instant; {@code offset} is the next offset the application would have taken.
 *       When the lease ran out first, the instant is the lease's end (takes are fenced from then on), which may
 *       be earlier than the event's delivery;</li>
 *   <li>{@link Kind#COMMAND_REJECTED}: a Ping, Stop or Start was refused ({@code error}, e.g.
 *       STALE_COORDINATOR_EPOCH), {@code detail} names it;</li>
 *   <li>{@link Kind#STATE_CHANGED}: the session moved, {@code detail} is {@code "FROM->TO"}.</li>
 * </ul>
 */
public record ConsumerEvent(
        long nanoTime, Kind kind, String topic, String partition, int epoch, int generation, long offset,
        ErrorCode error, String detail) {

    public enum Kind { FETCH_STARTED, FETCH_STOPPED, COMMAND_REJECTED, STATE_CHANGED }

    public ConsumerEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(error, "error");
    }
}
