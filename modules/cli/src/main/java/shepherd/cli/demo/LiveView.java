package shepherd.cli.demo;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import shepherd.broker.BrokerStatus;
import shepherd.coordination.Coordinator.Role;
import shepherd.coordination.GroupView;

/**
 * A terminal dashboard redrawn in place {@link #FRAMES_PER_SECOND} times a second with ANSI escapes: brokers and
 * the coordinator's epoch, each group's generation and who holds which partitions, records per consumer, and the
 * latest timeline entries with rebalance durations. Log lines (standard error) would tear the picture, so while it
 * draws they are captured and their last few shown in a panel of their own.
 */
final class LiveView implements View {
    static final int FRAMES_PER_SECOND = 4;
    private static final int TIMELINE_ROWS = 12;
    private static final int LOG_ROWS = 4;
    private static final int PARTITIONS_WIDTH = 56;
    private static final String CLEAR_SCREEN = "\033[2J\033[H";
    private static final String HOME = "\033[H";
    private static final String CLEAR_LINE = "\033[K";
    private static final String CLEAR_BELOW = "\033[J";
    private static final String HIDE_CURSOR = "\033[?25l";
    private static final String SHOW_CURSOR = "\033[?25h";
    private static final String BOLD = "\033[1m";
    private static final String DIM = "\033[2m";
    private static final String RED = "\033[31m";
    private static final String GREEN = "\033[32m";
    private static final String YELLOW = "\033[33m";
    private static final String CYAN = "\033[36m";
    private static final String RESET = "\033[0m";

    private final DemoRun.Context ctx;
    private final PrintStream out;
    private final LogTail logTail = new LogTail(LOG_ROWS);
    private PrintStream originalErr;
    private volatile boolean running = true;
    private Thread thread;
    private volatile String phase = "starting";

    LiveView(DemoRun.Context ctx, PrintStream out) {
        this.ctx = ctx;
        this.out = out;
    }

    void phase(String phase) {
        this.phase = phase;
    }

    @Override
    public synchronized void start() {
        originalErr = System.err;
        System.setErr(new PrintStream(logTail, true, StandardCharsets.UTF_8));
        out.print(CLEAR_SCREEN + HIDE_CURSOR);
        out.flush();
        thread = new Thread(this::drawLoop, "demo-live-view");
        thread.setDaemon(true);
        thread.start();
    }

    private void drawLoop() {
        try {
            while (running) {
                draw();
                Thread.sleep(1000 / FRAMES_PER_SECOND); // the refresh rate
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void draw() {
        List<String> rows = frame();
        StringBuilder b = new StringBuilder(HOME);
        rows.forEach(r -> b.append(r).append(RESET).append(CLEAR_LINE).append('\n'));
        b.append(CLEAR_BELOW);
        out.print(b);
        out.flush();
    }

    List<String> frame() {
        List<String> rows = new ArrayList<>();
        Monitor.Snapshot snap = ctx.monitor().latest();
        rows.add(BOLD + "shepherd demo" + RESET + String.format("   seed %d   %s / %s   %s", ctx.seed(),
                Timeline.stamp(ctx.timeline().nowMs()), Timeline.stamp(ctx.durationMs()), phase + nextEvent())
                + DIM + "   (Ctrl-C stops and cleans up)");
        rows.add(String.format("producer: %,d records on %d partitions of topic '%s'", ctx.producer().total(),
                ctx.producer().partitionCount(), ctx.topic()));
        rows.add("");
        rows.add(BOLD + "brokers" + RESET + "  " + brokers(snap.brokers(), ctx.brokers()));
        BrokerStatus coordinator = coordinator(snap.brokers());
        rows.add(coordinator == null ? YELLOW + "coordinator: none (election under way)"
                : String.format("coordinator: broker %d, epoch %d, %s%s", coordinator.brokerId(),
                        coordinator.epoch(), coordinator.role(), stale(snap.brokers(), coordinator)));
        for (String g : ctx.groups().names()) {
            rows.add("");
            rows.addAll(group(g, snap, coordinator));
        }
        rows.add("");
        rows.add(BOLD + "timeline" + RESET);
        ctx.timeline().last(TIMELINE_ROWS, List.of(Timeline.Kind.SCRIPT, Timeline.Kind.CLUSTER,
                Timeline.Kind.REBALANCE, Timeline.Kind.DEMO)).forEach(e -> rows.add("  " + colour(e)));
        List<String> logs = logTail.lines();
        if (!logs.isEmpty()) {
            rows.add("");
            rows.add(BOLD + "log" + RESET + DIM + " (standard error, last " + LOG_ROWS + ")");
            logs.forEach(l -> rows.add(DIM + "  " + clip(l, 150)));
        }
        return rows;
    }

    private String nextEvent() {
        Script.Step next = ctx.script() == null ? null : ctx.script().next();
        return next == null ? "" : String.format(" (next: %s in %.1fs)", next.action().title(),
                Math.max(0, next.atMs() - ctx.timeline().nowMs()) / 1000.0);
    }

    private static String brokers(Map<Integer, BrokerStatus> brokers, int count) {
        StringBuilder b = new StringBuilder();
        for (int id = 1; id <= count; id++) {
            BrokerStatus s = brokers.get(id);
            b.append("  ").append(id).append(' ');
            if (s == null) {
                b.append(RED).append("down").append(RESET);
            } else {
                b.append(roleColour(s.role())).append(s.role()).append(RESET);
                if (s.coordinating()) {
                    b.append(" e").append(s.epoch());
                }
            }
        }
        return b.toString();
    }

    /** The broker coordinating under the highest epoch: the one consumers will follow. */
    private static BrokerStatus coordinator(Map<Integer, BrokerStatus> brokers) {
        return brokers.values().stream().filter(BrokerStatus::coordinating)
                .max(java.util.Comparator.comparingInt(BrokerStatus::epoch)).orElse(null);
    }

    /**
     * Brokers that still claim a lower epoch: a coordinator whose session the server expired believes it is
     * ACTIVE until it reconnects and hears so, but it stopped commanding when it lost ZooKeeper, and its writes are
     * fenced by the epoch.
     */
    private static String stale(Map<Integer, BrokerStatus> brokers, BrokerStatus coordinator) {
        List<String> stale = brokers.values().stream()
                .filter(s -> s.coordinating() && s.brokerId() != coordinator.brokerId())
                .map(s -> "broker " + s.brokerId() + " epoch " + s.epoch()).toList();
        return stale.isEmpty() ? "" : RED + "   still claiming a stale epoch: " + String.join(", ", stale)
                + " (fenced)";
    }

    private List<String> group(String g, Monitor.Snapshot snap, BrokerStatus coordinator) {
        List<String> rows = new ArrayList<>();
        GroupView view = coordinator == null ? null : coordinator.groups().get(g);
        String state = view == null ? "" : String.format("generation %d  %s", view.generation(),
                view.stable() ? GREEN + "stable" + RESET : YELLOW + "rebalancing" + RESET);
        rows.add(BOLD + "group " + g + RESET + DIM + " (" + describe(ctx.groups().subscription(g)) + ")" + RESET
                + "  " + state);
        Map<String, Long> counts = ctx.log().stats(g).perConsumer();
        for (Monitor.MemberView m : snap.groups().getOrDefault(g, List.of())) {
            String fate = switch (m.fate()) {
                case RUNNING -> (m.status().state().equals("FETCHING") ? GREEN : YELLOW)
                        + String.format("%-11s", m.status().state()) + RESET;
                case LEFT -> DIM + String.format("%-11s", "left") + RESET;
                case KILLED -> RED + String.format("%-11s", "killed") + RESET;
            };
            String partitions = m.fate() == Member.Fate.RUNNING ? String.join(" ", m.status().assigned().stream()
                    .map(p -> p.substring(p.indexOf('/') + 1)).toList()) : "";
            rows.add(String.format("  %-10s %s g%-3s %,9d  %s", m.id(), fate,
                    m.status().generation() < 0 ? "-" : Integer.toString(m.status().generation()),
                    counts.getOrDefault(m.id(), 0L), clip(partitions, PARTITIONS_WIDTH)));
        }
        return rows;
    }

    private static String describe(Member.Subscription s) {
        return s instanceof Member.Subscription.Static st ? "topic " + st.topic()
                : "whitelist " + ((Member.Subscription.Whitelist) s).regex();
    }

    private static String roleColour(Role role) {
        return switch (role) {
            case ACTIVE -> GREEN + BOLD;
            case LOADING, LEASE_WAIT, HANDING_OVER -> YELLOW + BOLD;
            case CLOSED -> RED;
            case FOLLOWER -> "";
        };
    }

    private static String colour(Timeline.Entry e) {
        String c = switch (e.kind()) {
            case SCRIPT -> CYAN;
            case CLUSTER -> YELLOW;
            case REBALANCE -> GREEN;
            default -> "";
        };
        return Timeline.stamp(e.atMs()) + " " + c + clip(e.text(), 140) + RESET;
    }

    private static String clip(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width - 1) + "…";
    }

    @Override
    public void stop() {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                t.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            if (originalErr != null) {
                draw();
                System.setErr(originalErr);
                originalErr = null;
                out.print(SHOW_CURSOR);
                out.println();
                out.flush();
            }
        }
    }

    /** The last lines written to standard error while the view draws. */
    private static final class LogTail extends OutputStream {
        private final int max;
        private final Deque<String> lines = new ArrayDeque<>();
        private final ByteArrayOutputStream current = new ByteArrayOutputStream();

        LogTail(int max) {
            this.max = max;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                String line = current.toString(StandardCharsets.UTF_8).stripTrailing();
                current.reset();
                if (!line.isBlank() && !line.startsWith("\tat ")) {
                    lines.addLast(line);
                    while (lines.size() > max) {
                        lines.removeFirst();
                    }
                }
            } else if (current.size() < 4096) {
                current.write(b);
            }
        }

        synchronized List<String> lines() {
            return List.copyOf(lines);
        }
    }
}
