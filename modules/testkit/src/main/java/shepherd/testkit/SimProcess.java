package shepherd.testkit;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * What a simulated process shares with a real one: it can be paused (a GC pause, SIGSTOP) and it can crash. While
 * paused, nothing of it runs: its timers and internal completions are held and run in order at resume, its network
 * deliveries are held by the network's gate. A crashed process runs nothing ever again.
 */
public final class SimProcess {
    private final Scheduler scheduler;
    private final SimNetwork network;
    private final String node;
    private final ArrayDeque<Runnable> held = new ArrayDeque<>();
    private final Map<Object, Scheduler.Task> timers = new HashMap<>();
    private boolean paused;
    private boolean crashed;
    /** Local milliseconds per real millisecond: within [1 − ρ, 1 + ρ] (DESIGN §5, clock rate drift). */
    private final double rate;
    private final long offsetMs;

    public SimProcess(Scheduler scheduler, SimNetwork network, String node) {
        this(scheduler, network, node, 1.0, 0);
    }

    /**
     * A process whose clock runs at {@code rate} local ms per real ms and reads {@code offsetMs} at real time 0.
     * The cores only ever see local time; the checker only ever real time.
     */
    public SimProcess(Scheduler scheduler, SimNetwork network, String node, double rate, long offsetMs) {
        if (!(rate > 0)) {
            throw new IllegalArgumentException("clock rate must be positive, got " + rate);
        }
        this.scheduler = scheduler;
        this.network = network;
        this.node = node;
        this.rate = rate;
        this.offsetMs = offsetMs;
    }

    /** This process's monotonic clock now. */
    public long localNowMs() {
        return localAt(scheduler.nowMs());
    }

    /** What this process's clock reads at real time {@code realMs}. */
    public long localAt(long realMs) {
        return offsetMs + (long) Math.floor(realMs * rate);
    }

    /** The first real time at which this process's clock reads at least {@code localMs}. */
    public long realAt(long localMs) {
        if (localMs == Long.MAX_VALUE || localMs == Long.MIN_VALUE) {
            return localMs;
        }
        return (long) Math.ceil((localMs - offsetMs) / rate);
    }

    public String node() {
        return node;
    }

    public boolean paused() {
        return paused;
    }

    public boolean crashed() {
        return crashed;
    }

    /** Runs {@code action} now, or at resume if paused; never after a crash. */
    public void run(Runnable action) {
        if (crashed) {
            return;
        }
        if (paused) {
            held.add(action);
            return;
        }
        action.run();
    }

    /** Runs {@code action} after {@code delayMs} of this process's clock. */
    public void after(long delayMs, Runnable action) {
        scheduler.at(realAt(localNowMs() + delayMs), () -> run(action));
    }

    /**
     * Sets (or replaces) the timer {@code key} for the local time {@code deadlineMs}; it fires through {@link #run},
     * so late after a pause.
     */
    public void setTimer(Object key, long deadlineMs, Runnable action) {
        cancelTimer(key);
        Scheduler.Task[] self = new Scheduler.Task[1];
        self[0] = scheduler.at(realAt(deadlineMs), () -> {
            if (timers.get(key) == self[0]) {
                timers.remove(key);
                run(action);
            }
        });
        timers.put(key, self[0]);
    }

    public void cancelTimer(Object key) {
        Scheduler.Task task = timers.remove(key);
        if (task != null) {
            task.cancel();
        }
    }

    public void cancelAllTimers() {
        timers.values().forEach(Scheduler.Task::cancel);
        timers.clear();
    }

    public void pause() {
        if (!crashed && !paused) {
            paused = true;
            network.setDeliveryGate(node, false);
        }
    }

    public void resume() {
        if (crashed || !paused) {
            return;
        }
        paused = false;
        network.setDeliveryGate(node, true);
        while (!held.isEmpty() && !paused && !crashed) {
            held.poll().run();
        }
    }

    public void crash() {
        crashed = true;
        paused = false;
        held.clear();
        cancelAllTimers();
        network.unregister(node);
    }
}
