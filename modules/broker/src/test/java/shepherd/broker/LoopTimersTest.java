package shepherd.broker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import shepherd.coordination.CoordinatorTimer;

class LoopTimersTest {
    private final ScheduledExecutorService timerThread = Executors.newSingleThreadScheduledExecutor();
    private final LinkedBlockingQueue<LoopTimers.Due> queue = new LinkedBlockingQueue<>();
    private final LoopTimers timers = new LoopTimers(timerThread, queue::add);
    private final CoordinatorTimer barrier = new CoordinatorTimer.Barrier("g");

    @AfterEach
    void stop() {
        timerThread.shutdownNow();
    }

    private LoopTimers.Due next() throws InterruptedException {
        return queue.poll(5, TimeUnit.SECONDS);
    }

    @Test
    void aTimerFiresOnce() throws Exception {
        timers.arm(barrier, 0);
        LoopTimers.Due due = next();
        assertTrue(timers.fired(due));
        assertFalse(timers.fired(due), "forgotten once it fired");
    }

    @Test
    void aFiringOfAnArmingSinceReplacedOrCancelledIsStale() throws Exception {
        timers.arm(barrier, 0);
        LoopTimers.Due first = next(); // on the queue already when the loop re-arms
        timers.arm(barrier, TimeUnit.HOURS.toMillis(1));
        assertFalse(timers.fired(first), "re-armed since: the old firing is dropped");
        timers.arm(barrier, 0);
        LoopTimers.Due second = next();
        timers.cancel(barrier);
        assertFalse(timers.fired(second), "cancelled since");
        timers.arm(barrier, 0);
        LoopTimers.Due third = next();
        timers.cancelAll();
        assertFalse(timers.fired(third), "cancelled with all the others");
        assertNull(queue.poll(50, TimeUnit.MILLISECONDS), "the hour-long arming was cancelled, not fired");
    }
}
