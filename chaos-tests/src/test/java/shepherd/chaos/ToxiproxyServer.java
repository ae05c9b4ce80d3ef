package shepherd.chaos;

import eu.rekawek.toxiproxy.ToxiproxyClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Toxiproxy server for a test (DESIGN §8; a home-made proxy is not acceptable). {@link #start()} looks in
 * this order:
 * <ol>
 *   <li>{@code TOXIPROXY_URL}: a server that is already running, used as is. It must run on this host, because the
 *       proxies it creates listen on its loopback and the upstreams are on ours. Proxies are the caller's to delete;
 *       the fixture never resets a server it did not start.</li>
 *   <li>{@code toxiproxy-server} on {@code PATH} (what {@code .ci/run} provides),</li>
 *   <li>{@code <repo>/tools/bin/toxiproxy-server}, where {@code .ci/run} installs it, so that a plain
 *       {@code mvn verify} works after one run of {@code .ci/run};</li>
 *   <li>a container of the image {@value #IMAGE} through Testcontainers, when a Docker engine is available. It
 *       runs in the host's network namespace ({@code --network host}, so Linux only): the chaos suite's proxies
 *       must listen on this host's loopback addresses (one per consumer) and reach upstreams on them.</li>
 * </ol>
 * A binary is started on 127.0.0.1 with a free API port, is ready once {@code GET /version} answers, and is
 * stopped through its process on {@link #close()} (or by a shutdown hook if the test JVM exits first); a container
 * likewise, stopped on {@link #close()} (Testcontainers reaps it if the JVM dies). With nothing found,
 * {@link #start()} fails and says how to get a server.
 */
public final class ToxiproxyServer implements AutoCloseable {

    /** The version {@code .ci/run} installs; BUILD-NOTES: {@code @latest} resolves to the old v2.5.0. */
    public static final String VERSION = "2.12.0";
    /** The official image of that version, for the container route. */
    static final String IMAGE = "ghcr.io/shopify/toxiproxy:" + VERSION;
    static final String URL_VARIABLE = "TOXIPROXY_URL";
    static final String BINARY_NAME = "toxiproxy-server";
    /** Set by chaos-tests' pom to {@code <repo>/tools/bin}. */
    static final String TOOLS_BIN_PROPERTY = "shepherd.toolsBin";
    /** Set by chaos-tests' pom to {@code target/toxiproxy}; the servers' own logs go there. */
    static final String LOG_DIR_PROPERTY = "shepherd.toxiproxyLogDir";

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(50);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
    /** A free port can be taken by someone else between our probe and the server's bind: retry with another. */
    private static final int LAUNCH_ATTEMPTS_MAX = 3;
    private static final Pattern VERSION_JSON = Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"");

    /** Where a server comes from. */
    sealed interface Location permits External, Binary, Container {}

    /** A server someone else runs, from {@code TOXIPROXY_URL}. */
    record External(URI api) implements Location {}

    /** An executable to start, with where it was found (for messages). */
    record Binary(Path executable, String foundVia) implements Location {}

    /** A container of {@code image}, for a machine with a Docker engine and no binary. */
    record Container(String image) implements Location {}

    private final URI api;
    private final String version;
    private final String origin;
    private final Process process; // null for an external server
    private final Path logFile; // null for an external server
    private final Thread shutdownHook; // null for an external server
    private final GenericContainer<?> container; // null unless the container route was taken

    private ToxiproxyServer(URI api, String version, String origin, Process process, Path logFile) {
        this(api, version, origin, process, logFile, null);
    }

    private ToxiproxyServer(URI api, String version, String origin, Process process, Path logFile,
                            GenericContainer<?> container) {
        this.api = api;
        this.version = version;
        this.origin = origin;
        this.process = process;
        this.logFile = logFile;
        this.container = container;
        this.shutdownHook = process == null ? null : new Thread(() -> stop(process), "toxiproxy-server-stopper");
        if (shutdownHook != null) {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    /** Finds or starts a server (see the class comment); fails with how to get one if there is none. */
    public static ToxiproxyServer start() throws IOException, InterruptedException {
        Location location = locate(System.getenv(), toolsBin(), ToxiproxyServer::dockerAvailable);
        if (location instanceof External external) {
            String version = awaitVersion(external.api(), null, null);
            return new ToxiproxyServer(external.api(), version, URL_VARIABLE + "=" + external.api(), null, null);
        }
        if (location instanceof Container image) {
            return launchContainer(image);
        }
        return launch((Binary) location);
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false; // no Docker client configuration at all: the same answer
        }
    }

    /** Starts {@link #IMAGE} on the host's network with its API on a free loopback port. */
    private static ToxiproxyServer launchContainer(Container image) throws IOException, InterruptedException {
        int port = LoopbackPorts.free();
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image.image()))
                .withNetworkMode("host")
                .withCommand("-host", "127.0.0.1", "-port", Integer.toString(port));
        container.start();
        URI api = URI.create("http://127.0.0.1:" + port);
        try {
            String version = awaitVersion(api, null, null);
            return new ToxiproxyServer(api, version, "container " + image.image() + " "
                    + container.getContainerId(), null, null, container);
        } catch (IOException | InterruptedException | RuntimeException e) {
            container.stop();
            throw e;
        }
    }

    /**
     * The lookup order of DESIGN §8, as a pure function of the environment and the tools directory.
     *
     * @throws IllegalStateException with instructions when no server can be found
     */
    static Location locate(Map<String, String> env, Optional<Path> toolsBin, BooleanSupplier dockerAvailable) {
        String url = env.get(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            return new External(parseUrl(url.trim()));
        }
        for (String dir : env.getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && isExecutable(Path.of(dir, BINARY_NAME))) {
                return new Binary(Path.of(dir, BINARY_NAME), "PATH");
            }
        }
        if (toolsBin.isPresent() && isExecutable(toolsBin.get().resolve(BINARY_NAME))) {
            return new Binary(toolsBin.get().resolve(BINARY_NAME), "the tools directory of .ci/run");
        }
        if (dockerAvailable.getAsBoolean()) {
            return new Container(IMAGE);
        }
        throw new IllegalStateException(howToGetOne(toolsBin));
    }

    static String howToGetOne(Optional<Path> toolsBin) {
        String tools = toolsBin.map(Path::toString).orElse("<repo>/tools/bin");
        return "No Toxiproxy server for the chaos tests: " + URL_VARIABLE + " is not set, there is no "
                + BINARY_NAME + " on PATH and none in " + tools + ".\n"
                + "Get Toxiproxy " + VERSION + " in one of these ways:\n"
                + "  1. run .ci/run once (CI does): it installs " + BINARY_NAME + " into " + tools
                + ", where these tests look;\n"
                + "  2. GOBIN=" + tools + " go install -ldflags \"-X github.com/Shopify/toxiproxy/v2.Version="
                + VERSION + "\" github.com/Shopify/toxiproxy/v2/cmd/server@v" + VERSION
                + " && mv " + tools + "/server " + tools + "/" + BINARY_NAME
                + "   (or put it on PATH as " + BINARY_NAME + "; pin v" + VERSION
                + ", @latest resolves to v2.5.0);\n"
                + "  3. start one yourself on this host and set " + URL_VARIABLE + "=http://127.0.0.1:8474 .\n"
                + "  4. or run a Docker engine: the tests then start " + IMAGE + " through Testcontainers"
                + " (none was found).";
    }

    /** A client for this server's HTTP API. */
    public ToxiproxyClient client() {
        return new ToxiproxyClient(api.getScheme(), api.getHost(), port(api));
    }

    /** The API address, e.g. {@code http://127.0.0.1:40123}. */
    public URI api() {
        return api;
    }

    /** What {@code GET /version} answered. */
    public String version() {
        return version;
    }

    /** Stops the server if this fixture started it; an external server is left alone. */
    @Override
    public void close() {
        if (container != null) {
            container.stop();
            return;
        }
        if (process == null) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook is running or about to: it stops the process
        }
        stop(process);
    }

    @Override
    public String toString() {
        return "Toxiproxy " + version + " at " + api + " (" + origin + (logFile == null ? "" : ", log " + logFile)
                + ")";
    }

    private static ToxiproxyServer launch(Binary binary) throws IOException, InterruptedException {
        Path logDir = Path.of(System.getProperty(LOG_DIR_PROPERTY, System.getProperty("java.io.tmpdir")));
        Files.createDirectories(logDir);
        List<String> failures = new ArrayList<>();
        for (int attempt = 1; attempt <= LAUNCH_ATTEMPTS_MAX; attempt++) {
            int port = LoopbackPorts.free();
            Path log = logDir.resolve(BINARY_NAME + "-" + port + ".log");
            Process process = new ProcessBuilder(binary.executable().toString(),
                    "-host", "127.0.0.1", "-port", Integer.toString(port))
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            URI api = URI.create("http://127.0.0.1:" + port);
            try {
                String version = awaitVersion(api, process, log);
                String origin = binary.executable() + " from " + binary.foundVia() + ", pid " + process.pid();
                return new ToxiproxyServer(api, version, origin, process, log);
            } catch (ServerExitedException exited) {
                failures.add(exited.getMessage()); // most likely the port was taken meanwhile: try another
            } catch (IOException | InterruptedException | RuntimeException e) {
                stop(process);
                throw e;
            }
        }
        throw new IllegalStateException(binary.executable() + " did not start in " + LAUNCH_ATTEMPTS_MAX
                + " attempts:\n" + String.join("\n", failures));
    }

    /**
     * Polls {@code GET /version} until it answers 200, the process (if any) exits, or {@link #READY_TIMEOUT}
     * passes.
     */
    private static String awaitVersion(URI api, Process process, Path log) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest request = HttpRequest.newBuilder(api.resolve("/version"))
                .timeout(Duration.ofSeconds(2)).GET().build();
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        IOException lastFailure = null;
        while (System.nanoTime() < deadline) {
            if (process != null && !process.isAlive()) {
                throw new ServerExitedException("exited with " + process.exitValue() + " before answering "
                        + api + "/version; its log " + log + ":\n" + tail(log));
            }
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return parseVersion(response.body());
                }
                lastFailure = new IOException("GET /version answered " + response.statusCode());
            } catch (IOException notYet) {
                lastFailure = notYet;
            }
            Thread.sleep(POLL_INTERVAL.toMillis());
        }
        String where = process == null ? URL_VARIABLE + "=" + api : "the server started at " + api
                + " (log " + log + ")";
        throw new IOException(where + " did not answer GET /version within " + READY_TIMEOUT.toSeconds() + " s",
                lastFailure);
    }

    static String parseVersion(String body) {
        Matcher json = VERSION_JSON.matcher(body);
        return json.find() ? json.group(1) : body.trim(); // before 2.6 the body was the bare version
    }

    private static URI parseUrl(String url) {
        URI uri = URI.create(url);
        if (uri.getScheme() == null || uri.getHost() == null) {
            throw new IllegalStateException(URL_VARIABLE + "=" + url + " is not a URL like http://127.0.0.1:8474");
        }
        return uri;
    }

    private static int port(URI uri) {
        if (uri.getPort() != -1) {
            return uri.getPort();
        }
        return "https".equals(uri.getScheme()) ? 443 : 80;
    }

    private static Optional<Path> toolsBin() {
        String configured = System.getProperty(TOOLS_BIN_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured).toAbsolutePath().normalize());
        }
        // Outside Maven (an IDE): the repository root is the nearest ancestor holding .ci/run.
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(".ci/run"))) {
                return Optional.of(dir.resolve("tools/bin"));
            }
        }
        return Optional.empty();
    }

    private static boolean isExecutable(Path file) {
        return Files.isRegularFile(file) && Files.isExecutable(file);
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** SIGTERM, then SIGKILL if it has not exited after {@link #STOP_TIMEOUT}. */
    private static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** The started server exited before it answered: typically its port was taken between probe and bind. */
    private static final class ServerExitedException extends IOException {
        ServerExitedException(String message) {
            super(message);
        }
    }
}
