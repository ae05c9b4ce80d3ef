package shepherd.cli.demo;

import java.io.PrintStream;
import java.util.List;

/**
 * One log-style line per timeline entry, as it happens, and a progress line every {@link #PROGRESS_MS}: for CI,
 * logs, and terminals that do not take ANSI.
 */
final class PlainView implements View {
    static final long PROGRESS_MS = 5_000;

    private final DemoRun.Context ctx;
    private final PrintStream out;
    private volatile boolean running = true;
    private Thread thread;

    PlainView(DemoRun.Context ctx, PrintStream out) {
        this.ctx = ctx;
        this.out = out;
    }

    @Override
    public void start() {
        ctx.timeline().listen(e -> {
            synchronized (out) {
                out.println(e.format());
            }
        });
        thread = new Thread(this::progressLoop, "demo-progress");
        thread.setDaemon(true);
        thread.start();
    }

    private void progressLoop() {
        try {
            while (running) {
                Thread.sleep(PROGRESS_MS); // the reporting interval
                if (running) {
                    ctx.timeline().add(Timeline.Kind.PROGRESS, progress(ctx));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code produced 1,234 on 12 partitions; billing 1,230 deliveries [billing-1 FETCHING g3, ...]; audit ...}. */
    static String progress(DemoRun.Context ctx) {
        StringBuilder b = new StringBuilder(String.format("produced %,d on %d partitions", ctx.producer().total(),
                ctx.producer().partitionCount()));
        Monitor.Snapshot snap = ctx.monitor().latest();
        for (String g : ctx.groups().names()) {
            DeliveryLog.GroupStats s = ctx.log().stats(g);
            List<Monitor.MemberView> members = snap.groups().getOrDefault(g, List.of());
            b.append(String.format("; %s %,d deliveries [", g, s.deliveries()));
            b.append(String.join(", ", members.stream().filter(m -> m.fate() == Member.Fate.RUNNING)
                    .map(m -> m.id() + " " + m.status().state() + " g" + m.status().generation()).toList()));
            b.append(']');
        }
        return b.toString();
    }

    @Override
    public void stop() {
        running = false;
        if (thread != null) {
            thread.interrupt();
        }
    }
}
