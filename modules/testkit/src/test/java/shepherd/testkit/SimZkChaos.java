package shepherd.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import shepherd.testkit.SimZooKeeper.Client;

/**
 * A seeded random workload with random faults over a few clients, recording every commit and every delivery. It
 * exists to check properties that must hold in every run (replay, FIFO callbacks, exactly one callback per request,
 * no ephemeral outliving its session), not any single scenario.
 */
final class SimZkChaos {
    private static final long TIMEOUT = 600;
    private static final String[] PATHS = {"/g", "/g/a", "/g/b", "/leader", "/g/a/x"};

    private final Scheduler scheduler = new Scheduler(new ManualClock(0));
    private final Random random;
    private final SimZooKeeper zk;
    private final List<String> trace = new ArrayList<>();
    private final List<Actor> actors = new ArrayList<>();
    private long issued;
    private long answered;
    private boolean healing;

    private SimZkChaos(long seed) {
        random = new Random(seed * 31 + 7);
        zk = new SimZooKeeper(scheduler, new Random(seed));
        zk.onCommit(commit -> {
            trace.add(commit.atMs() + " commit " + commit.zxid() + " s" + commit.sessionId() + " "
                    + commit.changes());
            checkEphemeralOwnersAlive();
        });
    }

    /** Runs {@code durationMs} of chaos, then heals everything and lets every request complete. */
    static SimZkChaos run(long seed, long durationMs) {
        SimZkChaos chaos = new SimZkChaos(seed);
        for (int i = 0; i < 3; i++) {
            chaos.spawn("c" + i);
        }
        chaos.scheduleFault();
        chaos.scheduler.runUntil(durationMs);
        chaos.healAll();
        chaos.scheduler.runUntil(durationMs + 10 * TIMEOUT);
        if (chaos.issued != chaos.answered) {
            throw new AssertionError("issued " + chaos.issued + " requests, answered " + chaos.answered);
        }
        chaos.checkEphemeralOwnersAlive();
        return chaos;
    }

    List<String> trace() {
        return trace;
    }

    private final class Actor {
        final String name;
        final Client client;
        long nextSeq;
        long lastAnsweredSeq = -1;
        boolean stopped;

        Actor(String name) {
            this.name = name;
            this.client = zk.connect(name, TIMEOUT, new SimZkListener() {
                @Override
                public void onSession(SimZkSessionEvent event) {
                    trace.add(scheduler.nowMs() + " " + name + " session " + event);
                    if (event == SimZkSessionEvent.EXPIRED) {
                        replace(Actor.this);
                    }
                }

                @Override
                public void onWatch(SimZkWatchEvent event) {
                    trace.add(scheduler.nowMs() + " " + name + " watch " + event);
                }
            });
        }

        void tick() {
            if (stopped) {
                return;
            }
            if (!client.paused()) {
                issueRandom();
            }
            scheduler.after(5 + random.nextInt(40), this::tick);
        }

        void issueRandom() {
            String path = PATHS[random.nextInt(PATHS.length)];
            long seq = nextSeq++;
            issued++;
            java.util.function.Consumer<SimZkResult> cb = result -> {
                if (seq != lastAnsweredSeq + 1) {
                    throw new AssertionError(name + " answered #" + seq + " after #" + lastAnsweredSeq);
                }
                lastAnsweredSeq = seq;
                answered++;
                trace.add(scheduler.nowMs() + " " + name + " #" + seq + " " + result);
            };
            switch (random.nextInt(8)) {
                case 0 -> client.create(path, name + seq, random.nextBoolean(), cb);
                case 1 -> client.setData(path, name + seq, random.nextInt(3) - 1, cb);
                case 2 -> client.delete(path, random.nextInt(3) - 1, cb);
                case 3 -> client.getData(path, random.nextBoolean(), cb);
                case 4 -> client.getChildren(path, random.nextBoolean(), cb);
                case 5 -> client.exists(path, random.nextBoolean(), cb);
                case 6 -> client.multi(List.of(new SimZkOp.Check("/g", -1),
                        new SimZkOp.Create(path + "/m", seq, random.nextBoolean()),
                        new SimZkOp.SetData(path, seq, -1)), cb);
                default -> client.sync(cb);
            }
        }
    }

    private void spawn(String name) {
        if (healing) {
            return;
        }
        Actor actor = new Actor(name);
        actors.add(actor);
        scheduler.after(random.nextInt(10), actor::tick);
    }

    private void replace(Actor dead) {
        if (!dead.stopped) {
            dead.stopped = true;
            scheduler.after(random.nextInt(50), () -> spawn(dead.name + "'"));
        }
    }

    private void scheduleFault() {
        scheduler.after(100 + random.nextInt(400), () -> {
            if (healing) {
                return;
            }
            List<Actor> live = actors.stream().filter(a -> !a.stopped).toList();
            if (!live.isEmpty()) {
                Actor actor = live.get(random.nextInt(live.size()));
                Client client = actor.client;
                long heal = random.nextInt((int) (2 * TIMEOUT));
                switch (random.nextInt(6)) {
                    case 0, 1 -> {
                        client.disconnect();
                        scheduler.after(heal, client::reconnect);
                    }
                    case 2, 3 -> {
                        client.pause();
                        scheduler.after(heal, client::resume);
                    }
                    case 4 -> zk.expire(client.sessionId());
                    default -> {
                        client.close();
                        replace(actor);
                    }
                }
                trace.add(scheduler.nowMs() + " fault on " + client);
            }
            scheduleFault();
        });
    }

    private void healAll() {
        healing = true;
        for (Actor actor : actors) {
            actor.stopped = true;
            actor.client.resume();
            actor.client.reconnect();
        }
    }

    private void checkEphemeralOwnersAlive() {
        for (String path : PATHS) {
            checkSubtree(path);
        }
    }

    private void checkSubtree(String path) {
        zk.node(path).ifPresent(node -> {
            long owner = node.stat().ephemeralOwner();
            if (owner != 0 && !zk.sessionAlive(owner)) {
                throw new AssertionError(path + " outlived its session " + owner);
            }
            for (String child : zk.children(path)) {
                checkSubtree(path + "/" + child);
            }
        });
    }
}
