package shepherd.benchmarks.e2e;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How long threads waited for a core, and how long they ran: Linux's per-thread scheduler statistics of every thread
 * of this JVM and of ZooKeeper's ({@code /proc/<pid>/task/<tid>/schedstat}: nanoseconds on a core, nanoseconds
 * runnable but waiting in the run queue), grouped by what the thread does, and the time the host took the machine's
 * virtual cores away ({@code steal} in {@code /proc/stat}). A rebalance crosses about eight threads in turn; this
 * says how long they stood in line for a core, and who held the cores meanwhile, where the latency alone only says
 * that something was slow.
 *
 * <p>Threads are told apart by the name the kernel holds ({@code comm}: the JVM sets it from the Java thread's name,
 * cut to 15 characters). Like {@link ThreadCpu}, a thread that ends between two snapshots loses what it did in
 * between, and one that starts in between counts whole. Where {@code /proc} has no schedstat (not Linux) there are
 * no figures rather than zeros. A snapshot reads two small files per thread into one reused buffer, so the harness
 * allocates little for it between repetitions.
 */
final class RunQueue {
    private static final long NANOS_PER_STEAL_TICK = 10_000_000L; // /proc/stat counts in USER_HZ, 100 per second

    /** What a thread does, by the start of its kernel name; the table's columns, in this order. */
    enum Kind {
        BROKER_LOOP("broker: loop and timers", "shepherd-broker"),
        BROKER_IO("broker: I/O", "shepherd-server"),
        BROKER_ZK("broker: ZooKeeper client", "shepherd-zk-ada"),
        SERVER("ZooKeeper server", "NIOWorkerThread", "NIOServerCxnFac", "SyncThread", "ProcessThread",
                "RequestThrottle", "CommitProcessor", "SessionTracker", "ConnnectionExpir"),
        CONSUMER_IO("consumers: I/O, session, events", "shepherd-client", "shepherd-consum"),
        FETCHERS("consumers: fetchers", "shepherd-fetche"),
        JIT("this JVM: JIT compilers", "C1 CompilerThre", "C2 CompilerThre"),
        GC("this JVM: GC and VM threads", "GC Thread", "G1 ", "VM Thread", "VM Periodic Tas"),
        SERVER_JVM("ZooKeeper's JVM: JIT, GC and VM threads"),
        OTHER("harness and other");

        private final String label;
        private final List<String> prefixes;

        Kind(String label, String... prefixes) {
            this.label = label;
            this.prefixes = List.of(prefixes);
        }

        String label() {
            return label;
        }
    }

    /** Nanoseconds each kind of thread waited for a core and ran, indexed by {@link Kind#ordinal()}; the host's steal. */
    record Usage(long[] waitNs, long[] cpuNs, long stealNs) {
        long waitNs(Kind kind) {
            return waitNs[kind.ordinal()];
        }

        long cpuNs(Kind kind) {
            return cpuNs[kind.ordinal()];
        }
    }

    /** One thread's kind and its totals so far. */
    record Task(Kind kind, long cpuNs, long waitNs) {}

    /** Every thread by "pid/tid", and the machine's steal so far; {@code available} false when not on Linux. */
    record Snapshot(Map<String, Task> tasks, long stealNs, boolean available) {}

    private final long selfPid = ProcessHandle.current().pid();
    private final long serverPid; // -1: ZooKeeper runs in this JVM
    private final byte[] buffer = new byte[128];
    /** The last snapshot's threads, whose names need not be read again. */
    private Map<String, Task> last = Map.of();

    /** @param serverPid the process of ZooKeeper's JVM, or -1 when the server runs in this one */
    RunQueue(long serverPid) {
        this.serverPid = serverPid;
    }

    synchronized Snapshot snapshot() {
        Map<String, Task> tasks = new HashMap<>(2 * last.size() + 16);
        boolean available = read(selfPid, tasks) & (serverPid < 0 || read(serverPid, tasks));
        last = tasks;
        return new Snapshot(tasks, steal(), available);
    }

    /** What every kind of thread waited and ran between two snapshots; null when either could not be read. */
    static Usage between(Snapshot before, Snapshot after) {
        if (!before.available() || !after.available()) {
            return null;
        }
        long[] wait = new long[Kind.values().length];
        long[] cpu = new long[Kind.values().length];
        for (Map.Entry<String, Task> e : after.tasks().entrySet()) {
            Task then = before.tasks().get(e.getKey());
            Task now = e.getValue();
            boolean same = then != null && then.kind() == now.kind() && then.waitNs() <= now.waitNs()
                    && then.cpuNs() <= now.cpuNs(); // else the thread id was reused by a new thread: it counts whole
            wait[now.kind().ordinal()] += same ? now.waitNs() - then.waitNs() : now.waitNs();
            cpu[now.kind().ordinal()] += same ? now.cpuNs() - then.cpuNs() : now.cpuNs();
        }
        return new Usage(wait, cpu, Math.max(0, after.stealNs() - before.stealNs()));
    }

    /**
     * A thread's kind from its kernel name. In ZooKeeper's own JVM, the JVM's threads (compilers, collector) are one
     * kind and every other thread serves requests.
     */
    static Kind kind(String comm, boolean inServerJvm) {
        for (Kind k : Kind.values()) {
            if (k.prefixes.stream().anyMatch(comm::startsWith)) {
                return !inServerJvm ? k : k == Kind.JIT || k == Kind.GC ? Kind.SERVER_JVM : Kind.SERVER;
            }
        }
        return inServerJvm ? Kind.SERVER : Kind.OTHER;
    }

    /**
     * The first {@code n} bytes of a schedstat file, "cpu-ns wait-ns timeslices\n", as its first two numbers; an
     * {@link IllegalArgumentException} quoting the text when it is not that.
     */
    static long[] parseSchedstat(byte[] text, int n) {
        long[] numbers = new long[2];
        int i = 0;
        for (int field = 0; field < 2; field++) {
            int start = i;
            long v = 0;
            while (i < n && text[i] >= '0' && text[i] <= '9' && i - start < 19) {
                v = v * 10 + (text[i++] - '0');
            }
            boolean ended = i < n && (text[i] == ' ' || field == 1 && text[i] == '\n');
            if (i == start || !ended && !(field == 1 && i == n)) {
                throw new IllegalArgumentException("not a schedstat line: \""
                        + new String(text, 0, Math.max(0, n), StandardCharsets.US_ASCII).trim() + "\"");
            }
            numbers[field] = v;
            i++;
        }
        return numbers;
    }

    /** The machine's steal so far, in nanoseconds, from /proc/stat's first line ("cpu user nice system … steal"). */
    static long stealNs(String procStatFirstLine) {
        String[] fields = procStatFirstLine.trim().split("\\s+");
        if (fields.length < 9 || !fields[0].equals("cpu")) {
            throw new IllegalArgumentException("not /proc/stat's cpu line: \"" + procStatFirstLine + "\"");
        }
        return Long.parseLong(fields[8]) * NANOS_PER_STEAL_TICK;
    }

    /** Adds every live thread of {@code pid}; false if its threads cannot be read at all. */
    private boolean read(long pid, Map<String, Task> into) {
        String dir = "/proc/" + pid + "/task/";
        String[] tids = new File(dir).list();
        if (tids == null) {
            return false;
        }
        boolean any = false;
        for (String tid : tids) {
            String key = pid + "/" + tid;
            int n = readInto(dir + tid + "/schedstat");
            if (n <= 0) {
                continue; // the thread ended while the directory was read: left out, as one that ended before
            }
            long[] numbers = parseSchedstat(buffer, n);
            long cpu = numbers[0];
            long wait = numbers[1];
            Task known = last.get(key);
            Kind kind;
            if (known != null && known.waitNs() <= wait && known.cpuNs() <= cpu) {
                kind = known.kind();
            } else {
                try {
                    kind = kind(Files.readString(Path.of(dir, tid, "comm")).trim(), pid == serverPid);
                } catch (IOException e) {
                    continue;
                }
            }
            into.put(key, new Task(kind, cpu, wait));
            any = true;
        }
        return any;
    }

    /** Reads a small file into the buffer; its length, or -1 if it is gone. */
    private int readInto(String path) {
        try (RandomAccessFile f = new RandomAccessFile(path, "r")) {
            return f.read(buffer);
        } catch (IOException e) {
            return -1;
        }
    }

    private static long steal() {
        try (var lines = Files.lines(Path.of("/proc/stat"), StandardCharsets.US_ASCII)) {
            return lines.findFirst().map(RunQueue::stealNs).orElse(0L);
        } catch (IOException | IllegalArgumentException e) {
            return 0;
        }
    }
}
