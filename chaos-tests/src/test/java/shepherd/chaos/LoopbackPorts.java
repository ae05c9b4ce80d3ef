package shepherd.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for the servers the suite launches in other processes (brokers, ZooKeeper members, Toxiproxy).
 *
 * <p>Such a port must be chosen here and bound there, so it is free for a while in between, and again whenever the
 * suite kills a process and restarts it on the same port. A port from {@code new ServerSocket(0)} is taken from the
 * kernel's ephemeral range, the very range every outgoing connection of the run (ZooKeeper clients, Toxiproxy's
 * upstreams, consumers) also takes its local port from; one of them took a broker's port once, and the broker exited
 * with "Address already in use". So the ports come from below that range, where no outgoing connection is given
 * a port, and this JVM never hands out the same one twice.
 */
public final class LoopbackPorts {
    /** Lowest port handed out: clear of the well-known and most registered service ports. */
    static final int LOWEST = 10_000;
    /** Linux's default ephemeral range, used where the kernel's cannot be read. */
    static final Range DEFAULT_EPHEMERAL = new Range(32_768, 60_999);
    private static final Path EPHEMERAL_FILE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int ATTEMPTS = 500;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private LoopbackPorts() {
    }

    /** An inclusive port range. */
    record Range(int low, int high) {
        int size() {
            return Math.max(0, high - low + 1);
        }
    }

    /** A port free on the loopback address now, outside the ephemeral range, not handed out before by this JVM. */
    public static int free() {
        try (ServerSocket socket = reserve()) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close a probe of a loopback port", e);
        }
    }

    /** Like {@link #free}, but still bound: the caller closes it when the port should become free for its user. */
    public static ServerSocket reserve() {
        Range range = candidates(ephemeralRange());
        if (range.size() == 0) {
            return bindAny();
        }
        IOException last = null;
        for (int i = 0; i < ATTEMPTS; i++) {
            int port = range.low() + ThreadLocalRandom.current().nextInt(range.size());
            if (!HANDED_OUT.add(port)) {
                continue;
            }
            try {
                ServerSocket socket = new ServerSocket();
                try {
                    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                    return socket;
                } catch (IOException e) {
                    socket.close();
                    throw e;
                }
            } catch (IOException e) {
                last = e; // taken by somebody else: try another
            }
        }
        throw new UncheckedIOException("no free loopback port in " + range + " after " + ATTEMPTS + " attempts",
                last == null ? new IOException("every port tried was handed out before") : last);
    }

    /** The ports to choose from: the larger of the stretches below and above the ephemeral range. */
    static Range candidates(Range ephemeral) {
        Range below = new Range(LOWEST, ephemeral.low() - 1);
        Range above = new Range(ephemeral.high() + 1, 65_535);
        Range larger = below.size() >= above.size() ? below : above;
        return larger.size() >= 1_000 ? larger : new Range(0, -1);
    }

    /** The kernel's ephemeral range, or Linux's default where it cannot be read (another OS, a sandbox). */
    static Range ephemeralRange() {
        try {
            return parseRange(Files.readString(EPHEMERAL_FILE, StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL;
        }
    }

    /** Parses {@code ip_local_port_range}'s "low<whitespace>high"; anything else gives Linux's default. */
    static Range parseRange(String text) {
        String[] parts = text.strip().split("\\s+");
        if (parts.length != 2) {
            return DEFAULT_EPHEMERAL;
        }
        try {
            int low = Integer.parseInt(parts[0]);
            int high = Integer.parseInt(parts[1]);
            return low >= 1 && low <= high && high <= 65_535 ? new Range(low, high) : DEFAULT_EPHEMERAL;
        } catch (NumberFormatException e) {
            return DEFAULT_EPHEMERAL;
        }
    }

    private static ServerSocket bindAny() {
        try {
            return new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
