package shepherd.testkit;

import java.util.Random;

/**
 * What the network between the clients and the server decides, drawn from the ensemble's one seeded random in the
 * order things happen: how long each one-way trip takes, and whether a request on a link that just went down had
 * already reached the server.
 */
final class SimZkWire {
    private final Random random;
    private final long delayMinMs;
    private final long delayMaxMs;

    SimZkWire(Random random, long delayMinMs, long delayMaxMs) {
        this.random = random;
        this.delayMinMs = delayMinMs;
        this.delayMaxMs = delayMaxMs;
    }

    /** One one-way trip, uniform in [{@code delayMinMs}, {@code delayMaxMs}]; a fixed delay draws nothing. */
    long delay() {
        return delayMinMs == delayMaxMs ? delayMinMs : random.nextLong(delayMinMs, delayMaxMs + 1);
    }

    boolean reachedServer() {
        return random.nextBoolean();
    }
}
