package shepherd.chaos.cluster;

import eu.rekawek.toxiproxy.ToxiproxyClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import shepherd.chaos.LoopbackPorts;
import shepherd.chaos.ToxiproxyServer;
import shepherd.chaos.history.Entry;
import shepherd.chaos.history.History;
import shepherd.cli.admin.ZkAdmin;
import shepherd.zookeeper.ZkPaths;
import shepherd.zookeeper.ZnodeCodec;

/**
 * The system under test of a chaos run (DESIGN §8), every part a real process: a three-node ZooKeeper ensemble,
 * three brokers launched from the runtime image's {@code bin/shepherd broker}, and consumer workers
 * ({@code ConsumerWorker}), with a real Toxiproxy on every link:
 *
 * <pre>
 *   broker b ──zk{z}-b{b}──▶ ZooKeeper node z         (each broker its own link to each node)
 *   consumer c ──c{c}-b{b}──▶ broker b                 (each consumer its own link to each broker)
 *   ZooKeeper node n ──zk-q/e-n-m──▶ node m            (quorum and election links, {@link ZkEnsemble})
 * </pre>
 *
 * A consumer reaches the brokers by name: broker b advertises host {@code b<b>} and the port of its consumer links;
 * each worker JVM resolves every broker name to a loopback address of its own, 127.0.0.(10+c), where its own
 * links listen ({@code -Djdk.net.hosts.file}). So cutting {@code c2-b1} cuts consumer 2 from broker 1 and nobody
 * else, whichever address the coordinator's Consult answer names.
 *
 * <p>The test itself talks to ZooKeeper directly (no proxy) to create topics and to read the coordinator, owners
 * and offsets.
 */
public final class ChaosCluster implements AutoCloseable {
    /** Where modules/image links the image, relative to the chaos-tests module. */
    static final Path IMAGE = Path.of("..", "modules", "image", "target", "maven-jlink", "default").toAbsolutePath()
            .normalize();
    public static final String TOPIC = "chaos";
    public static final String GROUP = "chaos-group";

    /** What a run is made of; the defaults are DESIGN §8's short timeouts. */
    public record Settings(int brokers, int consumers, int partitionsPerBroker, int sessionTimeoutMs,
                           int pingIntervalMs, int maxPingRetries, boolean fencingDisabled) {
        public static Settings defaults() {
            return new Settings(3, 4, 2, 2_000, 200, 2, false);
        }

        public Settings withFencingDisabled() {
            return new Settings(brokers, consumers, partitionsPerBroker, sessionTimeoutMs, pingIntervalMs,
                    maxPingRetries, true);
        }

        public long leaseMs() {
            return (long) pingIntervalMs * (maxPingRetries + 1);
        }
    }

    private final Path dir;
    private final Settings settings;
    private final History history;
    private final ToxiproxyServer toxiproxy;
    private final ZkEnsemble zk;
    private final ZkAdmin admin;
    private final Map<Integer, ChildProcess> brokers = new TreeMap<>();
    private final Map<Integer, Integer> brokerPorts = new TreeMap<>(); // broker → real port
    private final Map<Integer, Integer> advertisedPorts = new TreeMap<>(); // broker → consumer-link port
    private final Map<String, Link> links = new LinkedHashMap<>();
    private final Map<String, ChildProcess> consumers = new TreeMap<>();
    private final Map<String, Integer> consumerSlots = new TreeMap<>();
    private final Path root;
    private Workload workload;

    private ChaosCluster(Path dir, Settings settings, History history, ToxiproxyServer toxiproxy, ZkEnsemble zk,
                         ZkAdmin admin) {
        this.dir = dir;
        this.settings = settings;
        this.history = history;
        this.toxiproxy = toxiproxy;
        this.zk = zk;
        this.admin = admin;
        this.root = dir.resolve("logs");
    }

    /** Starts ZooKeeper, the brokers and the consumers, and waits until each is up; the caller awaits stability. */
    public static ChaosCluster start(Path dir, Settings settings, History history)
            throws IOException, InterruptedException {
        deleteRecursively(dir); // a run's files are its own: nothing of an earlier run may leak into its history
        Files.createDirectories(dir);
        ToxiproxyServer toxiproxy = ToxiproxyServer.start();
        ZkEnsemble zk = null;
        try {
            deleteOurProxies(toxiproxy.client());
            zk = ZkEnsemble.start(dir.resolve("zookeeper"), toxiproxy.client(), PROXY_PREFIX);
            ZkAdmin admin = ZkAdmin.open(zk.connectString());
            ChaosCluster c = new ChaosCluster(dir, settings, history, toxiproxy, zk, admin);
            try {
                c.boot();
            } catch (IOException | RuntimeException e) {
                c.close(); // whatever did start (brokers, consumers) goes with the ensemble and the proxies
                throw e;
            }
            return c;
        } catch (IOException | RuntimeException e) {
            if (zk != null) {
                zk.close();
            }
            toxiproxy.close();
            throw e;
        }
    }

    /**
     * Every proxy of a chaos run is named with this prefix, so a run can remove what an interrupted earlier run left
     * on a server it shares ({@code TOXIPROXY_URL}) without touching anybody else's proxies.
     */
    static final String PROXY_PREFIX = "shepherd-chaos-";

    private static void deleteOurProxies(ToxiproxyClient client) throws IOException {
        for (var p : client.getProxies()) {
            if (p.getName().startsWith(PROXY_PREFIX)) {
                p.delete();
            }
        }
    }

    private void boot() throws IOException {
        Files.createDirectories(root);
        Map<Integer, Integer> counts = new TreeMap<>();
        for (int b = 1; b <= settings.brokers(); b++) {
            counts.put(b, settings.partitionsPerBroker());
        }
        admin.writeTopic(TOPIC, counts, ZkAdmin.TopicWrite.SET);
        for (int b = 1; b <= settings.brokers(); b++) {
            brokerPorts.put(b, LoopbackPorts.free());
            advertisedPorts.put(b, LoopbackPorts.free());
            for (int z = 1; z <= zk.size(); z++) {
                InetSocketAddress node = zk.clientAddress(z);
                link("zk" + z + "-b" + b, "broker " + b, "zookeeper " + z, "127.0.0.1:" + LoopbackPorts.free(),
                        node.getHostString() + ":" + node.getPort());
            }
            brokers.put(b, brokerProcess(b));
            brokers.get(b).start();
        }
        for (var b : brokers.entrySet()) {
            b.getValue().awaitLog("broker " + b.getKey() + " listening on", 1, Duration.ofSeconds(60));
        }
        for (int c = 1; c <= settings.consumers(); c++) {
            addConsumer("c" + c);
        }
    }

    private Link link(String name, String from, String to, String listen, String upstream) throws IOException {
        Link l = new Link(toxiproxy.client().createProxy(PROXY_PREFIX + name, listen, upstream), from, to);
        links.put(name, l);
        return l;
    }

    private ChildProcess brokerProcess(int b) throws IOException {
        String zkConnect = IntStream.rangeClosed(1, zk.size()).mapToObj(z -> links.get("zk" + z + "-b" + b).listen())
                .collect(Collectors.joining(","));
        List<String> cmd = new ArrayList<>(List.of(IMAGE.resolve("bin/shepherd").toString(), "broker",
                "--broker-id", Integer.toString(b), "--listen-host", "127.0.0.1",
                "--port", Integer.toString(brokerPorts.get(b)), "--advertised-host", "b" + b,
                "--advertised-port", Integer.toString(advertisedPorts.get(b)), "--zookeeper", zkConnect,
                "--session-timeout-ms", Integer.toString(settings.sessionTimeoutMs()),
                "--set", "message.delay.max.ms=200", "--set", "rebalance.stop.timeout.ms=1000",
                "--set", "rebalance.start.timeout.ms=2000", "--set", "request.timeout.ms=2000",
                "--set", "shutdown.timeout.ms=5000", "--set", "handover.grace.ms=500"));
        Map<String, String> env = new TreeMap<>();
        env.put("JDK_JAVA_OPTIONS", String.join(" ", ChildProcess.jvmFlags()));
        if (settings.fencingDisabled()) {
            cmd.addAll(FencingOff.brokerArguments());
            env.putAll(FencingOff.brokerEnvironment(dir));
        }
        return new ChildProcess("broker-" + b, cmd, env, dir.resolve("broker-" + b + ".log"));
    }

    /** Starts a consumer worker with its own links to every broker, and waits until it runs. */
    public ChildProcess addConsumer(String id) throws IOException {
        int slot = consumerSlots.computeIfAbsent(id, k -> 11 + consumerSlots.size());
        String ip = "127.0.0." + slot;
        for (int b : brokers.keySet()) {
            if (!links.containsKey(id + "-b" + b)) {
                link(id + "-b" + b, "consumer " + id, "broker " + b, ip + ":" + advertisedPorts.get(b),
                        "127.0.0.1:" + brokerPorts.get(b));
            }
        }
        Path hosts = dir.resolve(id + ".hosts");
        Files.writeString(hosts, ip + " " + brokers.keySet().stream().map(b -> "b" + b)
                .collect(Collectors.joining(" ")) + "\n");
        String bootstrap = brokers.keySet().stream().map(b -> "b" + b + ":" + advertisedPorts.get(b))
                .collect(Collectors.joining(","));
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(ChildProcess.jvmFlags());
        cmd.addAll(List.of("-Djdk.net.hosts.file=" + hosts, "-cp", System.getProperty("java.class.path"),
                "shepherd.chaos.worker.ConsumerWorker", "id=" + id, "group=" + GROUP, "bootstrap=" + bootstrap,
                "root=" + root, "topic=" + TOPIC, "streams=1", "history=" + historyFile(id),
                "pingIntervalMs=" + settings.pingIntervalMs(), "maxPingRetries=" + settings.maxPingRetries()));
        ChildProcess p = new ChildProcess("consumer-" + id, cmd, Map.of(), dir.resolve("consumer-" + id + ".log"));
        consumers.put(id, p);
        p.start();
        p.awaitLog("worker " + id + " started", p.count("worker " + id + " started") + 1, Duration.ofSeconds(60));
        return p;
    }

    public Path historyFile(String consumer) {
        return dir.resolve("history-" + consumer + ".jsonl");
    }

    /** Stops a consumer gracefully (it sends Leave) and waits until it is gone. */
    public void stopConsumer(String id) {
        ChildProcess p = consumers.get(id);
        p.closeStdin();
        p.awaitExit(Duration.ofSeconds(30));
    }

    /** SIGKILLs a consumer and records its death: its open fetches end here. */
    public void killConsumer(String id) {
        consumers.get(id).kill();
        history.add(new Entry.Died(System.nanoTime(), GROUP, id));
    }

    /** Starts producing records into every partition of the topic. */
    public Workload startWorkload() {
        workload = new Workload(root, TOPIC, this::knownPartitions, history).start();
        return workload;
    }

    public Optional<Workload> workload() {
        return Optional.ofNullable(workload);
    }

    /** The topic's partition ids ("brokerId-n"), as ZooKeeper has them now. */
    public List<String> partitions() {
        SortedMap<Integer, Integer> counts = admin.topicPartitions(TOPIC).orElse(new TreeMap<>());
        List<String> out = new ArrayList<>();
        counts.forEach((b, n) -> IntStream.range(0, n).forEach(i -> out.add(b + "-" + i)));
        return out;
    }

    /**
     * The partitions as last read, re-read at most every {@value #PARTITIONS_REFRESH_MS} ms; while ZooKeeper is
     * unreachable from the test (a nemesis at work) the last reading stands, so the workload keeps producing.
     */
    synchronized List<String> knownPartitions() {
        if (System.nanoTime() - partitionsReadAt > PARTITIONS_REFRESH_MS * 1_000_000) {
            try {
                knownPartitions = partitions();
                partitionsReadAt = System.nanoTime();
            } catch (RuntimeException e) {
                // keep the last reading; try again next time
            }
        }
        return knownPartitions;
    }

    private static final long PARTITIONS_REFRESH_MS = 250;
    private List<String> knownPartitions = List.of();
    private long partitionsReadAt = Long.MIN_VALUE / 2;

    /** Adds {@code more} partitions on broker {@code broker} (nemesis 10). */
    public void growTopic(int broker, int more) {
        int now = admin.topicPartitions(TOPIC).orElseThrow().getOrDefault(broker, 0);
        admin.writeTopic(TOPIC, Map.of(broker, now + more), ZkAdmin.TopicWrite.GROW);
    }

    /** The elected coordinator, if any, as ZooKeeper says now. */
    public OptionalInt coordinator() {
        try {
            Optional<byte[]> data = admin.data(ZkPaths.COORDINATOR);
            return data.isPresent() ? OptionalInt.of(ZnodeCodec.decodeCoordinator(ZkPaths.COORDINATOR, data.get()))
                    : OptionalInt.empty();
        } catch (Exception e) {
            return OptionalInt.empty(); // no quorum right now, or a node being replaced: nobody known
        }
    }

    /** Waits for a coordinator and returns it. */
    public int awaitCoordinator(Duration timeout) {
        Waits.require(() -> coordinator().isPresent(), timeout, () -> "no coordinator elected");
        return coordinator().getAsInt();
    }

    /** The version of {@code /consumers/epoch}: the newest epoch (−1 before the first election). */
    public int epoch() {
        return admin.node(ZkPaths.EPOCH).map(ZkAdmin.Node::version).orElse(-1);
    }

    /** partition → consumer owning it, as ZooKeeper has the owners now. */
    public Map<String, String> owners() {
        Map<String, String> out = new TreeMap<>();
        String topicOwners = ZkPaths.ownersOfTopic(GROUP, TOPIC);
        for (String p : admin.children(topicOwners)) {
            String path = topicOwners + "/" + p;
            admin.data(path).ifPresent(d -> {
                try {
                    out.put(p, ZnodeCodec.decodeOwner(path, d).owner().consumerId());
                } catch (Exception e) {
                    out.put(p, "<undecodable>");
                }
            });
        }
        return out;
    }

    /** The group's registered members, as ZooKeeper has them now. */
    public List<String> members() {
        return admin.members(GROUP).stream().sorted().toList();
    }

    /** Records the owners ZooKeeper has now as {@link Entry.OwnerRead} entries (what Convergence judges by). */
    public void recordOwners() {
        int generation = admin.data(ZkPaths.group(GROUP)).map(d -> {
            try {
                return ZnodeCodec.decodeGroup(ZkPaths.group(GROUP), d).generation();
            } catch (Exception e) {
                return -1;
            }
        }).orElse(-1);
        long now = System.nanoTime();
        owners().forEach((p, c) -> history.add(new Entry.OwnerRead(now, GROUP, TOPIC, p, c, generation)));
    }

    public ChildProcess broker(int id) {
        return brokers.get(id);
    }

    public Map<Integer, ChildProcess> brokers() {
        return brokers;
    }

    public Map<String, ChildProcess> consumers() {
        return consumers;
    }

    /** Consumers whose process is running (paused ones included). */
    public List<String> liveConsumers() {
        return consumers.entrySet().stream().filter(e -> e.getValue().isAlive()).map(Map.Entry::getKey).toList();
    }

    /** The links of broker {@code b} to every ZooKeeper node. */
    public List<Link> zkLinksOf(int b) {
        return IntStream.rangeClosed(1, zk.size()).mapToObj(z -> links.get("zk" + z + "-b" + b)).toList();
    }

    /** The link of consumer {@code c} to broker {@code b}. */
    public Link consumerLink(String c, int b) {
        return links.get(c + "-b" + b);
    }

    /** Heals every link this cluster made (the ensemble's own quorum links included). */
    public void healAllLinks() {
        links.values().forEach(Link::heal);
        zk.healAll();
    }

    public ZkEnsemble zk() {
        return zk;
    }

    public History history() {
        return history;
    }

    public Settings settings() {
        return settings;
    }

    public Path dir() {
        return dir;
    }

    public Path root() {
        return root;
    }

    /**
     * Consumers first (gracefully), then brokers (SIGTERM), then ZooKeeper and Toxiproxy. Every step runs even if
     * an earlier one failed (a process left behind would haunt the next run); the first failure is rethrown.
     */
    @Override
    public void close() {
        List<Runnable> steps = new ArrayList<>();
        if (workload != null) {
            steps.add(workload::close);
        }
        for (ChildProcess c : consumers.values()) {
            steps.add(() -> {
                if (c.isPaused()) {
                    c.resume();
                }
                c.closeStdin();
            });
        }
        consumers.values().forEach(c -> steps.add(() -> c.terminate(Duration.ofSeconds(15))));
        brokers.values().forEach(b -> steps.add(() -> b.terminate(Duration.ofSeconds(15))));
        steps.add(admin::close);
        steps.add(zk::close);
        steps.add(() -> {
            try {
                deleteOurProxies(toxiproxy.client());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete the run's proxies", e);
            }
        });
        steps.add(toxiproxy::close);
        RuntimeException first = null;
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
