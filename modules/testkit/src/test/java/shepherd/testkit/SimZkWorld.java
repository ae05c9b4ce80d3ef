package shepherd.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/** A seeded simulated world plus a log of what every client observed, with times, to assert on order. */
final class SimZkWorld {
    final ManualClock clock = new ManualClock(0);
    final Scheduler scheduler = new Scheduler(clock);
    final SimZooKeeper zk;
    final List<String> log = new ArrayList<>();
    final List<SimZkCommit> commits = new ArrayList<>();

    SimZkWorld(long seed) {
        this(seed, 1, 5);
    }

    SimZkWorld(long seed, long delayMinMs, long delayMaxMs) {
        zk = new SimZooKeeper(scheduler, new Random(seed), delayMinMs, delayMaxMs);
        zk.onCommit(commits::add);
    }

    /** Connects and runs until the client is connected, leaving that event out of the log. */
    SimZooKeeper.Client connected(String name, long sessionTimeoutMs) {
        SimZooKeeper.Client client = zk.connect(name, sessionTimeoutMs, listener(name));
        while (client.state() != SimZooKeeper.Client.State.CONNECTED) {
            if (!scheduler.runNext()) {
                throw new AssertionError(name + " did not connect: " + client);
            }
        }
        log.remove(name + " session " + SimZkSessionEvent.SYNC_CONNECTED);
        return client;
    }

    SimZkListener listener(String name) {
        return new SimZkListener() {
            @Override
            public void onSession(SimZkSessionEvent event) {
                log.add(name + " session " + event);
            }

            @Override
            public void onWatch(SimZkWatchEvent event) {
                log.add(name + " watch " + event.type() + " " + event.path());
            }
        };
    }

    /** A callback that logs "name tag CODE" and keeps the result. */
    Consumer<SimZkResult> cb(String name, String tag, List<SimZkResult> into) {
        return result -> {
            log.add(name + " " + tag + " " + result.code());
            if (into != null) {
                into.add(result);
            }
        };
    }

    Consumer<SimZkResult> cb(String name, String tag) {
        return cb(name, tag, null);
    }

    void runFor(long ms) {
        scheduler.runUntil(scheduler.nowMs() + ms);
    }

    List<String> logOf(String name) {
        return log.stream().filter(line -> line.startsWith(name + " ")).toList();
    }

    /** Drains what this test has put in the log so far. */
    List<String> takeLog() {
        List<String> copy = List.copyOf(log);
        log.clear();
        return copy;
    }
}
