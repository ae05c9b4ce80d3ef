package shepherd.cli.demo;

import java.time.Duration;

/**
 * What one demo run does, every value checked.
 *
 * @param duration            the scripted part: producer running, events spread over it (the drain comes after)
 * @param consumersPerGroup   members of each group at the start
 * @param partitionsPerBroker partitions of the topic on each of the three brokers
 * @param seed                drives every random choice
 * @param plain               log lines instead of the live terminal view
 */
public record DemoOptions(Duration duration, int consumersPerGroup, int partitionsPerBroker, long seed,
                          boolean plain) {
    static final int CONSUMERS_MAX = 10;
    static final int PARTITIONS_MAX = 16;
    static final Duration DURATION_MIN = Duration.ofSeconds(10);
    static final Duration DURATION_MAX = Duration.ofHours(1);

    public DemoOptions {
        if (duration.compareTo(DURATION_MIN) < 0 || duration.compareTo(DURATION_MAX) > 0) {
            throw new IllegalArgumentException("--duration must be between 10s and 1h, got " + duration.toSeconds()
                    + "s");
        }
        if (consumersPerGroup < 1 || consumersPerGroup > CONSUMERS_MAX) {
            throw new IllegalArgumentException("--consumers must be between 1 and " + CONSUMERS_MAX + ", got "
                    + consumersPerGroup);
        }
        if (partitionsPerBroker < 1 || partitionsPerBroker > PARTITIONS_MAX) {
            throw new IllegalArgumentException("--partitions must be between 1 and " + PARTITIONS_MAX + ", got "
                    + partitionsPerBroker);
        }
    }
}
